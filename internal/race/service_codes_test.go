package race

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// addCode adds a code to the fixture race as its director does.
func (f *fixture) addCode(in CodeInput) error {
	ctx := context.Background()
	d, err := f.a.svc.Directed(ctx, &auth.User{ID: f.race.OwnerID}, f.race.Slug)
	if err != nil {
		return err
	}
	if err := f.a.svc.AddCode(ctx, d, in); err != nil {
		return err
	}
	f.race, err = f.a.svc.Race(ctx, f.race.Slug)
	return err
}

// holdWithCode is a new runner's hold, its pages filled, with a code
// applied as the runner typed it; the fixture race gets the code first.
func (f *fixture) holdWithCode(code CodeInput, typed string) (*auth.User, *Hold) {
	f.t.Helper()
	if err := f.addCode(code); err != nil {
		f.t.Fatal(err)
	}
	ctx := context.Background()
	u := f.user()
	h, err := f.a.svc.Start(ctx, u, f.race, f.event().ID)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := f.fill(ctx, u, h); err != nil {
		f.t.Fatal(err)
	}
	en, _ := f.entry(ctx, u, h)
	if err := f.a.svc.ApplyCode(ctx, en, typed); err != nil {
		f.t.Fatal(err)
	}
	return u, h
}

func (f *fixture) codeUsed(code string) int {
	f.t.Helper()
	c, err := f.a.store.CodeByName(context.Background(), f.d, f.race.ID, code)
	if err != nil {
		f.t.Fatal(err)
	}
	return c.Used
}

func fieldMsg(err error, field string) string {
	if e := errs.As(err); e != nil {
		return e.Fields[field]
	}
	return ""
}

// Codes: an early-access code holds a place before the opening, once per
// use; a discount code takes its percent off the entry, its uses counted
// when applied and given back when the hold goes or the registration is
// cancelled.
func TestCodesEarlyAccessAndDiscounts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		ctx := context.Background()
		if err := f.addCode(CodeInput{Code: "x"}); fieldMsg(err, "code") == "" {
			t.Errorf("a one-letter code: %v; want a field error", err)
		}
		if err := f.addCode(CodeInput{Code: "NOTHING"}); fieldMsg(err, "percent") == "" {
			t.Errorf("a code that gives nothing: %v; want a field error", err)
		}
		for _, in := range []CodeInput{{Code: "club-10", Percent: "10", MaxUses: "2"}, {Code: "EARLY", Early: true, MaxUses: "1"}} {
			if err := f.addCode(in); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.addCode(CodeInput{Code: "Club-10", Percent: "5"}); fieldMsg(err, "code") == "" {
			t.Errorf("the same code again: %v; want a field error", err)
		}
		if !f.race.EarlyCodes {
			t.Fatal("the race page does not know of the early-access code")
		}
		f.clock.Add(-2 * time.Hour) // the opening is 11:00 UTC, an hour before now
		ann, bo := f.user(), f.user()
		if _, err := f.a.svc.Start(ctx, ann, f.race, f.event().ID); !errors.Is(err, errNotOpen) {
			t.Fatalf("start before the opening: %v; want not open", err)
		}
		if _, err := f.a.svc.StartEarly(ctx, ann, f.race, f.event().ID, "CLUB-10"); fieldMsg(err, "code") == "" {
			t.Errorf("a discount code as early access: %v; want a field error", err)
		}
		h, err := f.a.svc.StartEarly(ctx, ann, f.race, f.event().ID, " early ")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.svc.StartEarly(ctx, bo, f.race, f.event().ID, "EARLY"); fieldMsg(err, "code") != "This code has been used up." {
			t.Errorf("a used-up early code: %v", err)
		}
		if taken, _, _, live := f.counts(); taken != 1 || live != 1 || f.codeUsed("EARLY") != 1 {
			t.Fatalf("taken %d live %d used %d; want 1, 1, 1", taken, live, f.codeUsed("EARLY"))
		}
		// Before the opening her early code stays on her hold (taking it
		// off would give its use back and let the next runner in early).
		if err := f.fill(ctx, ann, h); err != nil {
			t.Fatal(err)
		}
		en, _ := f.entry(ctx, ann, h)
		if err := f.a.svc.ApplyCode(ctx, en, ""); fieldMsg(err, "code") == "" || f.codeUsed("EARLY") != 1 {
			t.Fatalf("removing the early code before the opening: %v, used %d; want refused, 1", err, f.codeUsed("EARLY"))
		}
		// After the opening (her hold ran out meanwhile and is renewed as
		// anyone's) she swaps it for the discount: the early use goes back.
		f.clock.Add(61 * time.Minute)
		en, _ = f.entry(ctx, ann, h)
		if err := f.a.svc.ApplyCode(ctx, en, "nope-nope"); fieldMsg(err, "code") == "" {
			t.Errorf("no such code: %v", err)
		}
		if err := f.a.svc.ApplyCode(ctx, en, "club-10"); err != nil {
			t.Fatal(err)
		}
		if f.codeUsed("EARLY") != 0 || f.codeUsed("CLUB-10") != 1 {
			t.Errorf("uses early %d club %d; want 0, 1", f.codeUsed("EARLY"), f.codeUsed("CLUB-10"))
		}
		if err := f.pay(ctx, ann, h, pay.CardPaid); err != nil {
			t.Fatal(err)
		}
		f.drain()
		reg, err := f.a.store.RegistrationByHold(ctx, h.ID)
		if err != nil || reg.Amount != 2700 {
			t.Fatalf("ann's registration: %+v, %v; want 27.00 charged", reg, err)
		}
		f.clock.Add(2 * time.Hour) // open now
		// An early code once open is no way round the waiting room.
		eve := f.user()
		if _, err := f.a.svc.StartEarly(ctx, eve, f.race, f.event().ID, "EARLY"); !strings.Contains(fieldMsg(err, "code"), "register from the race page") {
			t.Errorf("an early code after the opening: %v; want refused", err)
		}
		if h, err := f.a.store.LiveHold(ctx, d, f.event().ID, eve.ID); err != nil || h != nil {
			t.Errorf("eve's hold after the refusal: %+v, %v; want none", h, err)
		}
		cy, dee := f.user(), f.user()
		hc, _ := f.a.svc.Start(ctx, cy, f.race, f.event().ID)
		hd, _ := f.a.svc.Start(ctx, dee, f.race, f.event().ID)
		for _, r := range []struct {
			u *auth.User
			h *Hold
		}{{cy, hc}, {dee, hd}} {
			if err := f.fill(ctx, r.u, r.h); err != nil {
				t.Fatal(err)
			}
		}
		en, _ = f.entry(ctx, cy, hc)
		if err := f.a.svc.ApplyCode(ctx, en, "CLUB-10"); err != nil {
			t.Fatal(err)
		}
		en, _ = f.entry(ctx, dee, hd)
		if err := f.a.svc.ApplyCode(ctx, en, "CLUB-10"); fieldMsg(err, "code") != "This code has been used up." {
			t.Fatalf("a third use of two: %v", err)
		}
		en, _ = f.entry(ctx, cy, hc)
		if err := f.a.svc.Leave(ctx, en); err != nil {
			t.Fatal(err)
		}
		en, _ = f.entry(ctx, dee, hd)
		if err := f.a.svc.ApplyCode(ctx, en, "CLUB-10"); err != nil {
			t.Fatalf("a use given back by cy's leaving: %v", err)
		}
		// Dee's hold runs out and she pays: the code went with the old
		// hold, and she is told so before anything is charged.
		f.clock.Add(21 * time.Minute)
		if err := f.pay(ctx, dee, hd, pay.CardPaid); fieldMsg(err, "code") == "" {
			t.Errorf("paying a renewed hold that lost its code: %v; want a field error", err)
		}
		if f.codeUsed("CLUB-10") != 1 {
			t.Errorf("uses after dee's hold was renewed: %d; want 1 (ann's)", f.codeUsed("CLUB-10"))
		}
		// Then she leaves it to run out again: swept, nothing changes.
		f.clock.Add(21 * time.Minute)
		f.a.svc.writer.sweep()
		if f.codeUsed("CLUB-10") != 1 {
			t.Errorf("uses after dee's hold ran out: %d; want 1 (ann's)", f.codeUsed("CLUB-10"))
		}
		// Without a refund queue, cancelling ann's paid registration is
		// refused and nothing changes, her code's use included; with
		// one, the use goes back.
		f.a.svc.jobs = nil
		dir, err := f.a.svc.Directed(ctx, &auth.User{ID: f.race.OwnerID}, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.svc.Cancel(ctx, dir, reg.ID); err == nil {
			t.Fatal("cancelling a paid registration without a refund queue succeeded")
		}
		if f.codeUsed("CLUB-10") != 1 {
			t.Errorf("a refused cancellation gave the use back")
		}
		f.a.svc.jobs = jobs.New(d, jobs.Options{})
		if _, err := f.a.svc.Cancel(ctx, dir, reg.ID); err != nil {
			t.Fatal(err)
		}
		if f.codeUsed("CLUB-10") != 0 {
			t.Errorf("uses after the cancellation: %d; want 0", f.codeUsed("CLUB-10"))
		}
	}, sets()...)
}

// Many runners apply the last uses of a code at once: exactly its uses
// are taken, on SQLite and on PostgreSQL.
func TestCodeUsesNeverOverspent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const runners, uses = 30, 7
		f := newFixture(t, d, runners, 2000)
		if err := f.addCode(CodeInput{Code: "HALF", Percent: "50", MaxUses: "7"}); err != nil {
			t.Fatal(err)
		}
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
					err = f.fill(ctx, u, h)
				}
				if err != nil {
					errc <- err
					return
				}
				en, _ := f.entry(ctx, u, h)
				switch err := f.a.svc.ApplyCode(ctx, en, "half"); {
				case err == nil:
					got.Add(1)
				case fieldMsg(err, "code") != "":
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
		var discounted int
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM race_holds WHERE discount = 1000`), &discounted); err != nil {
			t.Fatal(err)
		}
		if got.Load() != uses || short.Load() != runners-uses || f.codeUsed("HALF") != uses || discounted != uses {
			t.Errorf("%d applied, %d refused, %d used, %d holds discounted; want %d, %d, %d, %d",
				got.Load(), short.Load(), f.codeUsed("HALF"), discounted, uses, runners-uses, uses, uses)
		}
	}, sets()...)
}

// An early-access hold that runs out before the opening is not renewed as
// an ordinary one (that would find the event not open, and say sold out):
// its runner is told to hold a place again with the code, whose use came
// back with the hold.
func TestEarlyHoldRunsOutBeforeTheOpening(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 5, 1000)
		if err := f.addCode(CodeInput{Code: "VIP-1", Early: true, MaxUses: "1"}); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		f.clock.Add(-2 * time.Hour) // the opening is 11:00 UTC, an hour before now
		ann := f.user()
		h, err := f.a.svc.StartEarly(ctx, ann, f.race, f.event().ID, "vip-1")
		if err != nil {
			t.Fatal(err)
		}
		f.clock.Add(21 * time.Minute)
		if err := f.fill(ctx, ann, h); !errors.Is(err, errEarlyRanOut) {
			t.Fatalf("filling an early hold that ran out: %v; want errEarlyRanOut", err)
		}
		if f.codeUsed("VIP-1") != 0 {
			t.Errorf("the code's use did not come back with the hold")
		}
		if _, err := f.a.svc.StartEarly(ctx, ann, f.race, f.event().ID, "VIP-1"); err != nil {
			t.Errorf("holding again with the code: %v", err)
		}
	}, sets()...)
}

// A discount is a percent of the price: a hold carrying a 20 % code when
// the director raises the price from 30.00 to 50.00 pays 40.00, not
// 50.00 less the 6.00 worked out at the old price; the payment page read
// at the old price is refused, nothing charged.
func TestDiscountFollowsAPriceChange(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		ann, h := f.holdWithCode(CodeInput{Code: "CLUB", Percent: "20"}, "club")
		ctx := context.Background()
		old, _ := f.entry(ctx, ann, h)
		if got := old.Hold.Owed(old.Event); got != 2400 {
			t.Fatalf("owed with the code %d; want 2400", got)
		}
		dir, err := f.a.svc.Directed(ctx, &auth.User{ID: f.race.OwnerID}, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		in := eventInput(dir.Race, &dir.Race.Events[0])
		in.Price = "50.00"
		if err := f.a.svc.UpdateEvent(ctx, dir, f.event().ID, in); err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.Pay(ctx, old, pay.CardPaid, "2400"); !errors.Is(err, errTotalChanged) {
			t.Fatalf("paying the old total: %v; want errTotalChanged", err)
		}
		now, _ := f.entry(ctx, ann, h)
		if got := now.Hold.Owed(now.Event); got != 4000 || now.Hold.Discount != 1000 {
			t.Fatalf("owed after the price change %d (discount %d); want 4000 (1000)", got, now.Hold.Discount)
		}
		if err := f.a.svc.Pay(ctx, now, pay.CardPaid, "4000"); err != nil {
			t.Fatal(err)
		}
		if paid, err := f.gw.Paid(ctx); err != nil || len(paid) != 1 || paid[0].Amount != 4000 {
			t.Fatalf("charges %+v, %v; want one of 4000", paid, err)
		}
		// A code applied from a page read at the old price (a cached
		// event): the discount is the new price's.
		bo := f.user()
		hb, err := f.a.svc.Start(ctx, bo, f.race, f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.fill(ctx, bo, hb); err != nil {
			t.Fatal(err)
		}
		stale, _ := f.entry(ctx, bo, hb)
		stale.Event.Price = 3000
		if err := f.a.svc.ApplyCode(ctx, stale, "CLUB"); err != nil {
			t.Fatal(err)
		}
		if h, _ := f.a.store.Hold(ctx, hb.ID); h.Discount != 1000 {
			t.Errorf("discount applied from a stale page %d; want 1000 (20 %% of 50.00)", h.Discount)
		}
	}, sets()...)
}

// Deleting a code or an event: refused (409) while runners have used it;
// another race's or a deleted one's id is not found (404), not refused;
// an unused one goes.
func TestDeleteRefusedOrNotFound(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		ctx := context.Background()
		for _, in := range []CodeInput{{Code: "USED-10", Percent: "10"}, {Code: "SPARE-10", Percent: "10"}} {
			if err := f.addCode(in); err != nil {
				t.Fatal(err)
			}
		}
		f.holdWithCode(CodeInput{Code: "TAKEN-5", Percent: "5"}, "TAKEN-5") // a runner's hold holds the place
		dir, err := f.a.svc.Directed(ctx, &auth.User{ID: f.race.OwnerID}, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		codes, err := f.a.svc.Codes(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		id := map[string]int64{}
		for _, c := range codes {
			id[c.Code] = c.ID
		}
		kind := func(err error) errs.Kind { return errs.KindOf(err) }
		if err := f.a.svc.DeleteCode(ctx, dir, id["TAKEN-5"]); kind(err) != errs.Conflict {
			t.Errorf("deleting a used code: %v; want a conflict", err)
		}
		if err := f.a.svc.DeleteCode(ctx, dir, id["SPARE-10"]); err != nil {
			t.Fatalf("deleting an unused code: %v", err)
		}
		for _, cid := range []int64{id["SPARE-10"], 1 << 40} {
			if err := f.a.svc.DeleteCode(ctx, dir, cid); kind(err) != errs.NotFound {
				t.Errorf("deleting code %d, gone or never this race's: %v; want not found", cid, err)
			}
		}
		if err := f.a.svc.DeleteEvent(ctx, dir, f.event().ID); kind(err) != errs.Conflict {
			t.Errorf("deleting an event with a place taken: %v; want a conflict", err)
		}
		if err := f.a.svc.DeleteEvent(ctx, dir, 1<<40); kind(err) != errs.NotFound {
			t.Errorf("deleting an event never this race's: %v; want not found", err)
		}
	}, sets()...)
}
