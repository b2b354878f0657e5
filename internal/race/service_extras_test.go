package race

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// withExtras turns on the fixture race's teams and fundraiser and adds
// store items of the given stocks (price 15 each), as its director would.
func (f *fixture) withExtras(stocks ...int) {
	f.t.Helper()
	ctx := context.Background()
	owner := &auth.User{ID: f.race.OwnerID}
	steps := []func(d *Directing) error{func(d *Directing) error {
		return f.a.svc.SetExtras(ctx, d, ExtrasInput{Teams: true, Fundraiser: "  River Trust "})
	}}
	for i, n := range stocks {
		steps = append(steps, func(d *Directing) error {
			return f.a.svc.AddItem(ctx, d, ItemInput{Name: "Item " + itoa(i+1), Price: "15", Stock: itoa(n)})
		})
	}
	for _, step := range steps {
		d, err := f.a.svc.Directed(ctx, owner, f.race.Slug)
		if err == nil {
			err = step(d)
		}
		if err != nil {
			f.t.Fatal(err)
		}
	}
	var err error
	if f.race, err = f.a.svc.Race(ctx, f.race.Slug); err != nil {
		f.t.Fatal(err)
	}
}

// item is item i's counters as stored.
func (f *fixture) itemTaken(i int) int {
	f.t.Helper()
	var n int
	if err := db.Scan(f.d.QueryRow(context.Background(), `SELECT taken FROM race_items WHERE id = ?`, f.race.Items[i].ID), &n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

// buy saves u's store page with qty units of item i.
func (f *fixture) buy(ctx context.Context, u *auth.User, h *Hold, i, qty int) error {
	en, err := f.entry(ctx, u, h)
	if err != nil {
		return err
	}
	id := "qty-" + i64(f.race.Items[i].ID)
	return f.a.svc.SaveStore(ctx, en, func(k string) string {
		if k == id {
			return itoa(qty)
		}
		return ""
	})
}

// A runner's extras: a team joined by its name whatever the accents and
// case, a donation, store items claimed from stock at once and never
// beyond it, given back when the hold goes, charged once with the entry,
// and written with the registration.
func TestExtrasTeamsDonationsStock(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		f.withExtras(3)
		if f.race.Fundraiser != "River Trust" || !f.race.Teams || len(f.race.Items) != 1 {
			t.Fatalf("race extras %q %v %v", f.race.Fundraiser, f.race.Teams, f.race.Items)
		}
		ctx := context.Background()
		ann, bo := f.user(), f.user()
		ha, err := f.a.svc.Start(ctx, ann, f.race, f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		hb, err := f.a.svc.Start(ctx, bo, f.race, f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		// The team page before the details: the hold has not done them.
		en, _ := f.entry(ctx, ann, ha)
		if err := f.a.svc.SaveTeam(ctx, en, "Zoë's Runners"); !errors.Is(err, ErrHoldMoved) {
			t.Fatalf("team before details: %v; want ErrHoldMoved", err)
		}
		for _, run := range []struct {
			u    *auth.User
			h    *Hold
			team string
		}{{ann, ha, "Zoë's Runners"}, {bo, hb, "  zoes RUNNERS "}} {
			en, _ := f.entry(ctx, run.u, run.h)
			if err := f.a.svc.SaveEntrant(ctx, en, EntrantInput{FirstName: "Ann", LastName: run.u.Username, Email: run.u.Email,
				BirthDate: "1990-05-01", Gender: "F", Emergency: "Bo, +49 30 1234567"}); err != nil {
				t.Fatal(err)
			}
			en, _ = f.entry(ctx, run.u, run.h)
			if err := f.a.svc.SaveTeam(ctx, en, run.team); err != nil {
				t.Fatal(err)
			}
		}
		teams, err := f.a.svc.Teams(ctx, f.race)
		if err != nil || len(teams) != 1 || teams[0].Name != "Zoë's Runners" {
			t.Fatalf("teams %+v, %v; want the one Zoë's Runners", teams, err)
		}
		en, _ = f.entry(ctx, ann, ha)
		if err := f.a.svc.SaveDonation(ctx, en, "other", "1000000"); errs.As(err) == nil || errs.As(err).Fields["other"] == "" {
			t.Errorf("a donation of a million: %v; want a field error", err)
		}
		if err := f.a.svc.SaveDonation(ctx, en, "2500", ""); err != nil {
			t.Fatal(err)
		}
		en, _ = f.entry(ctx, bo, hb)
		if err := f.a.svc.SaveDonation(ctx, en, "0", ""); err != nil {
			t.Fatal(err)
		}
		// Stock 3: ann takes 2, bo asks for 2 and is told 1 is left, with
		// nothing stored, then takes 1.
		if err := f.buy(ctx, ann, ha, 0, 2); err != nil {
			t.Fatal(err)
		}
		err = f.buy(ctx, bo, hb, 0, 2)
		if e := errs.As(err); e == nil || e.Fields["qty-"+i64(f.race.Items[0].ID)] != "Only 1 left." {
			t.Fatalf("bo's 2 of 1 left: %v; want Only 1 left", err)
		}
		if got := f.itemTaken(0); got != 2 {
			t.Fatalf("taken after a refused claim %d; want 2", got)
		}
		if hold, _ := f.a.store.Hold(ctx, hb.ID); hold.Step != stepDonation {
			t.Errorf("bo's step after the refused store page %d; want %d", hold.Step, stepDonation)
		}
		if err := f.buy(ctx, bo, hb, 0, 1); err != nil {
			t.Fatal(err)
		}
		if got := f.itemTaken(0); got != 3 {
			t.Fatalf("taken %d; want 3", got)
		}
		// Ann changes her mind to 1: one goes back.
		if err := f.buy(ctx, ann, ha, 0, 1); err != nil {
			t.Fatal(err)
		}
		if got := f.itemTaken(0); got != 2 {
			t.Fatalf("taken after ann's 2 -> 1: %d; want 2", got)
		}
		// Bo leaves: his shirt goes back with his place.
		en, _ = f.entry(ctx, bo, hb)
		if err := f.a.svc.Leave(ctx, en); err != nil {
			t.Fatal(err)
		}
		if got := f.itemTaken(0); got != 1 {
			t.Fatalf("taken after bo left: %d; want 1", got)
		}
		// Ann's waiver, then her hold runs out and is swept: shirt back,
		// and she is sent back to the store page when she returns.
		en, _ = f.entry(ctx, ann, ha)
		if err := f.a.svc.AcceptWaiver(ctx, en, true); err != nil {
			t.Fatal(err)
		}
		f.clock.Add(21 * time.Minute)
		f.a.svc.writer.sweep()
		if got := f.itemTaken(0); got != 0 {
			t.Fatalf("taken after ann's hold ran out: %d; want 0", got)
		}
		if err := f.pay(ctx, ann, ha, pay.CardPaid); !errors.Is(err, ErrHoldMoved) {
			t.Fatalf("paying after the store lines went back: %v; want ErrHoldMoved", err)
		}
		hold, _ := f.a.store.Hold(ctx, ha.ID)
		if hold.Step != stepDonation || hold.TeamName != "Zoë's Runners" || hold.Donation != 2500 {
			t.Fatalf("ann's hold after release: step %d team %q donation %d", hold.Step, hold.TeamName, hold.Donation)
		}
		if err := f.buy(ctx, ann, ha, 0, 2); err != nil { // renews the hold
			t.Fatal(err)
		}
		en, _ = f.entry(ctx, ann, ha)
		if err := f.a.svc.AcceptWaiver(ctx, en, true); err != nil {
			t.Fatal(err)
		}
		if err := f.pay(ctx, ann, ha, pay.CardPaid); err != nil {
			t.Fatal(err)
		}
		f.drain()
		reg, err := f.a.store.RegistrationByHold(ctx, ha.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := int64(3000 + 2500 + 2*1500); reg.Amount != want || reg.Donation != 2500 || reg.TeamName != "Zoë's Runners" {
			t.Errorf("registration amount %d donation %d team %q; want %d, 2500, Zoë's Runners", reg.Amount, reg.Donation, reg.TeamName, want)
		}
		paid, err := f.gw.Paid(ctx)
		if err != nil || len(paid) != 1 || paid[0].Amount != 8500 {
			t.Errorf("charges %+v, %v; want one of 8500", paid, err)
		}
		// Cancelled: the shirts go back to stock, the sale's lines stay.
		f.a.svc.jobs = jobs.New(d, jobs.Options{}) // refunds queued, not run here
		owner := &auth.User{ID: f.race.OwnerID}
		dir, err := f.a.svc.Directed(ctx, owner, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.svc.Cancel(ctx, dir, reg.ID); err != nil {
			t.Fatal(err)
		}
		if got := f.itemTaken(0); got != 0 {
			t.Errorf("taken after the cancellation: %d; want 0", got)
		}
		if lines, err := f.a.store.Lines(ctx, ha.ID); err != nil || len(lines) != 1 || lines[0].Qty != 2 {
			t.Errorf("lines after the cancellation: %+v, %v; want the 2 kept", lines, err)
		}
	}, sets()...)
}

// Many runners after the last units of an item at once: exactly the stock
// is sold, on SQLite and on PostgreSQL.
// A runner trying name after name on the team page leaves one team, not
// one per name: a team goes when its last runner picks another or none,
// and stays while a runner is in it.
func TestTeamsLeftByTheirLastRunnerGo(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		f.withExtras(3)
		ctx := context.Background()
		ann, bo := f.user(), f.user()
		detailed := func(u *auth.User) *Hold { // the details page done: the team page next
			t.Helper()
			h, err := f.a.svc.Start(ctx, u, f.race, f.event().ID)
			if err != nil {
				t.Fatal(err)
			}
			en, err := f.entry(ctx, u, h)
			if err == nil {
				err = f.a.svc.SaveEntrant(ctx, en, EntrantInput{FirstName: "Ann", LastName: u.Username, Email: u.Email,
					BirthDate: "1990-05-01", Gender: "F", Emergency: "Bo, +49 30 1234567"})
			}
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		ha, hb := detailed(ann), detailed(bo)
		team := func(u *auth.User, h *Hold, name string) {
			t.Helper()
			en, err := f.entry(ctx, u, h)
			if err == nil {
				err = f.a.svc.SaveTeam(ctx, en, name)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		names := func() []string {
			t.Helper()
			teams, err := f.a.svc.Teams(ctx, f.race)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, tm := range teams {
				out = append(out, tm.Name)
			}
			slices.Sort(out)
			return out
		}
		team(bo, hb, "Harbour Harriers")
		for i := range 5 {
			team(ann, ha, fmt.Sprintf("Typo %d", i))
		}
		if got := names(); !slices.Equal(got, []string{"Harbour Harriers", "Typo 4"}) {
			t.Errorf("teams after five names: %q; want Harbour Harriers and Typo 4", got)
		}
		team(ann, ha, "harbour harriers") // joins bo's
		team(bo, hb, "")                  // bo leaves; ann is still in it
		if got := names(); !slices.Equal(got, []string{"Harbour Harriers"}) {
			t.Errorf("teams: %q; want Harbour Harriers, ann's", got)
		}
		team(ann, ha, "")
		if got := names(); len(got) != 0 {
			t.Errorf("teams with no runner: %q; want none", got)
		}
	}, sets()...)
}

func TestStockNeverOversold(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const runners, stock = 60, 25
		f := newFixture(t, d, runners, 0)
		f.withExtras(stock, stock)
		ctx := context.Background()
		var got, short atomic.Int64
		var wg sync.WaitGroup
		errc := make(chan error, runners)
		for range runners {
			u := f.user()
			wg.Add(1)
			go func() {
				defer wg.Done()
				h, err := f.a.svc.Start(ctx, u, f.race, f.event().ID)
				if err == nil {
					en, _ := f.entry(ctx, u, h)
					err = f.a.svc.SaveEntrant(ctx, en, EntrantInput{FirstName: "A", LastName: "B", Email: u.Email,
						BirthDate: "1990-05-01", Gender: "X", Emergency: "Bo, +49 30 1234567"})
				}
				for _, step := range []func() error{
					func() error { en, _ := f.entry(ctx, u, h); return f.a.svc.SaveTeam(ctx, en, "") },
					func() error { en, _ := f.entry(ctx, u, h); return f.a.svc.SaveDonation(ctx, en, "0", "") },
				} {
					if err == nil {
						err = step()
					}
				}
				if err != nil {
					errc <- err
					return
				}
				// One of each item, both claimed in one save, in the
				// order the store decides (no deadlock on PostgreSQL).
				en, _ := f.entry(ctx, u, h)
				err = f.a.svc.SaveStore(ctx, en, func(string) string { return "1" })
				switch e := errs.As(err); {
				case err == nil:
					got.Add(1)
				case e != nil && e.Kind == errs.Invalid:
					short.Add(1)
				default:
					errc <- err
				}
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Errorf("a runner: %v", err)
		}
		if got.Load() != stock || short.Load() != runners-stock {
			t.Errorf("%d bought, %d told it ran out; want %d, %d", got.Load(), short.Load(), stock, runners-stock)
		}
		for i := range 2 {
			if n := f.itemTaken(i); n != stock {
				t.Errorf("item %d taken %d; want %d", i, n, stock)
			}
		}
		var lines int
		if err := db.Scan(d.QueryRow(ctx, `SELECT coalesce(sum(qty), 0) FROM race_hold_items`), &lines); err != nil {
			t.Fatal(err)
		}
		if lines != 2*stock {
			t.Errorf("%d units on holds; want %d", lines, 2*stock)
		}
	}, sets()...)
}

// throughExtras walks u's hold h of a race with extras from the details to
// the waiver (accepted if waiver), a request a page: no team, donation
// amount, qty of the first item.
func (f *fixture) throughExtras(ctx context.Context, u *auth.User, h *Hold, amount string, qty int, waiver bool) error {
	steps := []func(*Entry) error{
		func(en *Entry) error {
			return f.a.svc.SaveEntrant(ctx, en, EntrantInput{FirstName: "Ann", LastName: u.Username, Email: u.Email,
				BirthDate: "1990-05-01", Gender: "F", Emergency: "Bo, +49 30 1234567"})
		},
		func(en *Entry) error { return f.a.svc.SaveTeam(ctx, en, "") },
		func(en *Entry) error { return f.a.svc.SaveDonation(ctx, en, amount, "") },
		func(*Entry) error { return f.buy(ctx, u, h, 0, qty) },
	}
	if waiver {
		steps = append(steps, func(en *Entry) error { return f.a.svc.AcceptWaiver(ctx, en, true) })
	}
	for _, step := range steps {
		en, err := f.entry(ctx, u, h)
		if err != nil {
			return err
		}
		if err := step(en); err != nil {
			return err
		}
	}
	return nil
}

// Two windows of one runner: the payment page read with one donation, the
// donation changed in the other window, then the first pays. Charged is
// never what the stale window showed: the stale total is refused with
// nothing charged and the hold still open, whether the change came before
// the payment page's form was sent (the total it carries) or between the
// payment's read of the hold and its move to paying (the conditional
// update); then the new total is charged once.
func TestPaymentFromAStaleWindow(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		f.withExtras(3)
		ctx := context.Background()
		ann := f.user()
		h, err := f.a.svc.Start(ctx, ann, f.race, f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.throughExtras(ctx, ann, h, "1000", 1, true); err != nil {
			t.Fatal(err)
		}
		// Window A reads the hold: 3000 + 1000 + 1500.
		stale, _ := f.entry(ctx, ann, h)
		stale.Hold.Lines, _ = f.a.store.Lines(ctx, h.ID)
		if got := stale.Hold.Owed(stale.Event); got != 5500 {
			t.Fatalf("owed %d; want 5500", got)
		}
		// Window B goes back and gives 2500 instead.
		en, _ := f.entry(ctx, ann, h)
		if err := f.a.svc.SaveDonation(ctx, en, "2500", ""); err != nil {
			t.Fatal(err)
		}
		// A's form, sent with the total it showed.
		fresh, _ := f.entry(ctx, ann, h)
		if err := f.a.svc.Pay(ctx, fresh, pay.CardPaid, "5500"); !errors.Is(err, errTotalChanged) {
			t.Fatalf("paying the shown 5500 after the change: %v; want errTotalChanged", err)
		}
		// A's payment with the hold it read before the change.
		err = f.a.svc.Pay(ctx, stale, pay.CardPaid, "")
		if !errors.Is(err, errTotalChanged) {
			t.Fatalf("paying from the stale read: %v; want errTotalChanged", err)
		}
		if stale.Hold.Donation != 2500 {
			t.Errorf("the stale entry read again: donation %d; want 2500", stale.Hold.Donation)
		}
		if got := stale.Hold.Owed(stale.Event); got != 7000 {
			t.Errorf("the total shown after the refusal %d; want 7000", got)
		}
		if paid, err := f.gw.Paid(ctx); err != nil || len(paid) != 0 {
			t.Fatalf("charges after the refusals %+v, %v; want none", paid, err)
		}
		if hold, _ := f.a.store.Hold(ctx, h.ID); hold.Status != checkout.Held {
			t.Fatalf("hold %s after the refusals; want open", hold.Status)
		}
		fresh, _ = f.entry(ctx, ann, h)
		if err := f.a.svc.Pay(ctx, fresh, pay.CardPaid, "7000"); err != nil {
			t.Fatal(err)
		}
		f.drain()
		reg, err := f.a.store.RegistrationByHold(ctx, h.ID)
		if err != nil || reg.Amount != 7000 || reg.Donation != 2500 {
			t.Fatalf("registration %+v, %v; want 7000 with 2500 given", reg, err)
		}
		if paid, err := f.gw.Paid(ctx); err != nil || len(paid) != 1 || paid[0].Amount != 7000 {
			t.Fatalf("charges %+v, %v; want one of 7000", paid, err)
		}
	}, sets()...)
}
