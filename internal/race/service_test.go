package race

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// clock is a test's settable time.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock    { c := &clock{}; c.ns.Store(t.UnixNano()); return c }
func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }

// fixture is race's service on a fresh database with one published race.
type fixture struct {
	t     *testing.T
	d     *db.DB
	a     *App
	gw    *pay.Test
	clock *clock
	race  *Race
	users int
}

func sets() []db.Migrations {
	return []db.Migrations{db.KeyMigrations, auth.Migrations, jobs.Migrations, pay.Migrations, Migrations}
}

// newFixture's opts change its app's Deps before it is built (a test's
// gateway).
func newFixture(t *testing.T, d *db.DB, places int, price int64, opts ...func(*Deps)) *fixture {
	t.Helper()
	c := newClock(time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC))
	gw := &pay.Test{DB: d, Now: c.Now}
	assets, err := Module().Assets()
	if err != nil {
		t.Fatal(err)
	}
	deps := Deps{DB: d, Cache: cache.New(cache.NewLocal(8 << 20)), Pay: gw, Now: c.Now, HoldFor: 20 * time.Minute, Assets: assets}
	for _, o := range opts {
		o(&deps)
	}
	a, err := New(deps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	// The writer's sweep at start runs before the test moves the clock: a
	// late one would release, draw and invite as of the moved clock.
	<-a.svc.writer.Swept()
	f := &fixture{t: t, d: d, a: a, gw: gw, clock: c}
	owner := f.user()
	ctx := context.Background()
	r, err := a.svc.CreateRace(ctx, owner, RaceInput{Name: "Spring 10K", Location: "Riverside", Date: "2027-04-10", TZ: "Europe/Berlin", Currency: "eur"})
	if err != nil {
		t.Fatal(err)
	}
	// Each step as the director's request does, the race loaded afresh.
	for _, step := range []func(d *Directing) error{
		func(d *Directing) error { return a.svc.UpdateText(ctx, d, TextInput{Waiver: "I run at my own risk."}) },
		func(d *Directing) error {
			return a.svc.AddEvent(ctx, d, EventInput{Name: "10K", StartTime: "09:30", OpensDate: "2027-03-01", OpensTime: "12:00",
				ClosesDate: "2027-04-09", ClosesTime: "20:00", Price: checkout.Of(price, "").Decimal(), Cap: fmt.Sprint(places)})
		},
		func(d *Directing) error { return a.svc.Publish(ctx, d) },
	} {
		d, err := a.svc.Directed(ctx, owner, r.Slug)
		if err == nil {
			err = step(d)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if f.race, err = a.svc.Race(ctx, r.Slug); err != nil {
		t.Fatal(err)
	}
	return f
}

// user makes an account (straight into the table: hashing thousands of
// passwords would be the test's whole cost).
func (f *fixture) user() *auth.User {
	f.t.Helper()
	f.users++
	name := fmt.Sprintf("runner%d", f.users)
	u := &auth.User{Username: name, Email: name + "@example.com"}
	if err := f.d.WithTx(context.Background(), func(tx *db.Tx) error {
		return db.Scan(tx.QueryRow(context.Background(), `INSERT INTO users (username, username_key, email, email_key, password_hash, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'x', 0, 0) RETURNING id`, name, name, u.Email, u.Email), &u.ID)
	}); err != nil {
		f.t.Fatal(err)
	}
	return u
}

func (f *fixture) event() *Event { return &f.race.Events[0] }

// entry loads u's hold as a request of theirs does.
func (f *fixture) entry(ctx context.Context, u *auth.User, h *Hold) (*Entry, error) {
	return f.a.svc.Entry(ctx, u, f.race.Slug, h.ID)
}

// fill walks a hold through the details and the waiver, a request a page.
func (f *fixture) fill(ctx context.Context, u *auth.User, h *Hold) error {
	en, err := f.entry(ctx, u, h)
	if err != nil {
		return err
	}
	if err := f.a.svc.SaveEntrant(ctx, en, EntrantInput{FirstName: "Ann", LastName: u.Username,
		Email: u.Email, BirthDate: "1990-05-01", Gender: "F", Emergency: "Bo, +49 30 1234567"}); err != nil {
		return err
	}
	if en, err = f.entry(ctx, u, h); err != nil {
		return err
	}
	return f.a.svc.AcceptWaiver(ctx, en, true)
}

// pay sends the payment page for u's hold with card.
// paidOnce checks, once the writer is done, that h is registered and
// that the gateway holds one charge in all, of amount.
func (f *fixture) paidOnce(ctx context.Context, h *Hold, amount int64) {
	f.t.Helper()
	f.drain()
	if reg, err := f.a.svc.Written(ctx, h.ID, 0); err != nil || reg == nil {
		f.t.Fatalf("registration: %v, %v; want written", reg, err)
	}
	if paid, _ := f.gw.Paid(ctx); len(paid) != 1 || paid[0].Amount != amount {
		f.t.Errorf("charges: %+v; want one of %d", paid, amount)
	}
}

// filled is u's hold with the wizard's pages done, up to paying.
func (f *fixture) filled(ctx context.Context, u *auth.User) *Hold {
	f.t.Helper()
	h, err := f.a.svc.Start(ctx, u, f.race, f.event().ID)
	if err == nil {
		err = f.fill(ctx, u, h)
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return h
}

func (f *fixture) pay(ctx context.Context, u *auth.User, h *Hold, card string) error {
	en, err := f.entry(ctx, u, h)
	if err != nil {
		return err
	}
	return f.a.svc.Pay(ctx, en, card, "")
}

// counts is the event's counters and the registrations in the table.
func (f *fixture) counts() (taken, confirmed, regs, live int) {
	f.t.Helper()
	ctx := context.Background()
	e, err := f.a.store.Event(ctx, f.event().ID)
	if err != nil {
		f.t.Fatal(err)
	}
	if err := db.Scan(f.d.QueryRow(ctx, `SELECT count(*) FROM race_registrations WHERE event_id = ? AND status = 'confirmed'`, e.ID), &regs); err != nil {
		f.t.Fatal(err)
	}
	if err := db.Scan(f.d.QueryRow(ctx, `SELECT count(*) FROM race_holds WHERE event_id = ? AND status IN ('open', 'paying', 'paid')`, e.ID), &live); err != nil {
		f.t.Fatal(err)
	}
	return e.Taken, e.Confirmed, regs, live
}

// drain waits for the writer to have written every paid hold: the news of
// each (Service.Written), the writer kicked once.
func (f *fixture) drain() {
	f.t.Helper()
	ctx := context.Background()
	rows, err := f.d.Query(ctx, `SELECT id FROM race_holds WHERE status = `+checkout.Paid.SQL())
	if err != nil {
		f.t.Fatal(err)
	}
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			f.t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	f.a.svc.writer.Kick()
	deadline := time.Now().Add(30 * time.Second)
	for _, id := range ids {
		if reg, err := f.a.svc.Written(ctx, id, time.Until(deadline)); err != nil || reg == nil {
			f.t.Fatalf("paid hold %s not written in 30 s (%v)", id, err)
		}
	}
	if n, err := f.a.store.Queued(ctx); err != nil || n != 0 {
		f.t.Fatalf("%d paid holds unwritten after the %d found were written (%v)", n, len(ids), err)
	}
}

// Many more runners than places, all at once: exactly the places are held
// and then registered, every other runner is told it is sold out, bibs are
// unique, and every registration has its one charge.
func TestNeverOversold(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const places, runners = 500, 2000
		f := newFixture(t, d, places, 3500)
		users := make([]*auth.User, runners)
		for i := range users {
			users[i] = f.user()
		}
		ctx := context.Background()
		var held, soldOut, other atomic.Int64
		var wg sync.WaitGroup
		errc := make(chan error, runners)
		for _, u := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				h, err := f.a.svc.Start(ctx, u, f.race, f.event().ID)
				switch {
				case errors.Is(err, ErrSoldOut):
					soldOut.Add(1)
					return
				case err != nil:
					other.Add(1)
					errc <- err
					return
				}
				held.Add(1)
				if err := f.fill(ctx, u, h); err != nil {
					errc <- err
					return
				}
				if err := f.pay(ctx, u, h, pay.CardPaid); err != nil {
					errc <- err
				}
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Errorf("a runner: %v", err)
		}
		if held.Load() != places || soldOut.Load() != runners-places || other.Load() != 0 {
			t.Fatalf("held %d, sold out %d, other %d; want %d, %d, 0", held.Load(), soldOut.Load(), other.Load(), places, runners-places)
		}
		f.drain()
		taken, confirmed, regs, live := f.counts()
		if taken != places || confirmed != places || regs != places || live != 0 {
			t.Errorf("taken %d, confirmed %d, registrations %d, live holds %d; want %d, %d, %d, 0", taken, confirmed, regs, live, places, places, places)
		}
		var bibs, minBib, maxBib int
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(DISTINCT bib), min(bib), max(bib) FROM race_registrations WHERE race_id = ?`, f.race.ID),
			&bibs, &minBib, &maxBib); err != nil {
			t.Fatal(err)
		}
		if bibs != places || minBib != 1 || maxBib != places {
			t.Errorf("%d distinct bibs from %d to %d; want 1 to %d", bibs, minBib, maxBib, places)
		}
		paid, err := f.gw.Paid(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var matched int
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM race_registrations r JOIN pay_test_payments p ON p.id = r.payment_id
			AND p.idem_key = 'race-' || r.hold_id || '-0' AND p.amount = r.amount`), &matched); err != nil {
			t.Fatal(err)
		}
		if len(paid) != places || matched != places {
			t.Errorf("%d charges, %d matching a registration; want %d each", len(paid), matched, places)
		}
	}, sets()...)
}

// A hold runs out when its runner dawdles: the sweeper gives the place to
// the next runner, and the first is told it sold out when they come back;
// a runner who leaves gives their place back at once.
func TestHoldsExpireAndRelease(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 1, 2000)
		ctx := context.Background()
		ann, bo, cy := f.user(), f.user(), f.user()
		h, err := f.a.svc.Start(ctx, ann, f.race, f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		if again, err := f.a.svc.Start(ctx, ann, f.race, f.event().ID); err != nil || again.ID != h.ID {
			t.Fatalf("a second start: %v, %v; want the same hold %s", again, err, h.ID)
		}
		if _, err := f.a.svc.Start(ctx, bo, f.race, f.event().ID); !errors.Is(err, ErrSoldOut) {
			t.Fatalf("bo while ann holds the place: %v; want sold out", err)
		}
		f.clock.Add(21 * time.Minute)
		f.a.svc.writer.sweep()
		if taken, _, _, live := f.counts(); taken != 0 || live != 0 {
			t.Fatalf("after the hold ran out: taken %d, live %d; want 0, 0", taken, live)
		}
		hb, err := f.a.svc.Start(ctx, bo, f.race, f.event().ID)
		if err != nil {
			t.Fatalf("bo after ann's hold ran out: %v", err)
		}
		if err := f.fill(ctx, ann, h); !errors.Is(err, ErrSoldOut) {
			t.Errorf("ann back after her hold went to bo: %v; want sold out", err)
		}
		en, err := f.entry(ctx, bo, hb)
		if err == nil {
			err = f.a.svc.Leave(ctx, en)
		}
		if err != nil {
			t.Fatal(err)
		}
		if taken, _, _, _ := f.counts(); taken != 0 {
			t.Errorf("after bo left: taken %d; want 0", taken)
		}
		// Ann comes back once more: the place is free, so her hold is
		// renewed and she finishes.
		if err := f.fill(ctx, ann, h); err != nil {
			t.Fatalf("ann's renewed hold: %v", err)
		}
		if _, err := f.a.svc.Start(ctx, cy, f.race, f.event().ID); !errors.Is(err, ErrSoldOut) {
			t.Errorf("cy while ann's renewed hold stands: %v; want sold out", err)
		}
		if taken, _, _, live := f.counts(); taken != 1 || live != 1 {
			t.Errorf("taken %d, live %d; want 1, 1", taken, live)
		}
	}, sets()...)
}

// Payments: a decline leaves the hold open and charges nothing; a retried
// submit charges once; an answer lost in a crash is settled by the
// sweeper from the gateway's record; a registered runner is not charged
// again.
func TestPaymentsOnceAndSettled(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 4500)
		ctx := context.Background()
		ann := f.user()
		h := f.filled(ctx, ann)
		err := f.pay(ctx, ann, h, pay.CardDeclined)
		if err == nil || errs.FieldsOf(err)["card"] == "" {
			t.Fatalf("declined card: %v; want a field message", err)
		}
		if got, _ := f.a.store.Hold(ctx, h.ID); got.Status != checkout.Held {
			t.Fatalf("after a decline the hold is %s; want open", got.Status)
		}
		if paid, _ := f.gw.Paid(ctx); len(paid) != 0 {
			t.Fatalf("%d charges after a decline; want 0", len(paid))
		}
		for range 3 { // the submit sent again
			if err := f.pay(ctx, ann, h, pay.CardPaid); err != nil {
				t.Fatal(err)
			}
		}
		f.drain()
		if paid, _ := f.gw.Paid(ctx); len(paid) != 1 || paid[0].Amount != 4500 {
			t.Fatalf("charges after three submits: %+v; want one of 4500", paid)
		}
		if _, err := f.a.svc.Start(ctx, ann, f.race, f.event().ID); !errors.As(err, new(*AlreadyRegistered)) {
			t.Errorf("registering again: %v; want already registered", err)
		}

		// The answer lost: the gateway charged, the hold stays paying
		// (as if the process had died before storing the outcome).
		bo := f.user()
		hb := f.filled(ctx, bo)
		if err := f.pay(ctx, bo, hb, pay.CardAnswerLost); !errors.Is(err, pay.ErrUnavailable) {
			t.Fatalf("lost answer: %v; want unavailable", err)
		}
		if got, _ := f.a.store.Hold(ctx, hb.ID); got.Status != checkout.Paying {
			t.Fatalf("after a lost answer the hold is %s; want paying", got.Status)
		}
		f.a.svc.writer.sweep() // too early: left alone
		if got, _ := f.a.store.Hold(ctx, hb.ID); got.Status != checkout.Paying {
			t.Fatalf("a fresh paying hold was settled: %s", got.Status)
		}
		f.clock.Add(stalePaying + time.Minute)
		f.a.svc.writer.sweep()
		f.drain()
		if reg, err := f.a.svc.Written(ctx, hb.ID, 0); err != nil || reg == nil {
			t.Fatalf("the settled payment's registration: %v, %v", reg, err)
		}
		if paid, _ := f.gw.Paid(ctx); len(paid) != 2 {
			t.Errorf("%d charges; want 2 (ann's and bo's, once each)", len(paid))
		}
		if taken, confirmed, regs, live := f.counts(); taken != 2 || confirmed != 2 || regs != 2 || live != 0 {
			t.Errorf("taken %d, confirmed %d, registrations %d, live %d; want 2, 2, 2, 0", taken, confirmed, regs, live)
		}
	}, sets()...)
}

// lagging is a gateway whose record of a charge may lag it by lag (as
// Stripe's search does).
type lagging struct {
	pay.Gateway
	lag time.Duration
}

func (g lagging) FindLag() time.Duration { return g.lag }

// A hold left paying with no charge behind it (the gateway down) is
// settled only once the gateway's record can be trusted to show a charge
// (FindLag), and a settling that meets the runner submitting again does
// not open the hold under the runner's charge: it stays paying, and the
// runner's payment goes through, once.
func TestSettleWaitsForTheGatewayAndLeavesARetryAlone(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 4500, func(d *Deps) { d.Pay = lagging{d.Pay, time.Hour} })
		ctx := context.Background()
		cy := f.user()
		h := f.filled(ctx, cy)
		if err := f.pay(ctx, cy, h, pay.CardGatewayDown); !errors.Is(err, pay.ErrUnavailable) {
			t.Fatalf("gateway down: %v; want unavailable", err)
		}
		status := func() checkout.State {
			t.Helper()
			got, err := f.a.store.Hold(ctx, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got.Status
		}
		f.clock.Add(stalePaying + time.Minute)
		f.a.svc.writer.sweep()
		if st := status(); st != checkout.Paying {
			t.Fatalf("settled %s after %s, within the gateway's lag; want still paying", st, stalePaying+time.Minute)
		}
		f.clock.Add(time.Hour)
		before := f.a.svc.writer.StaleBefore()
		stale, err := f.a.store.StalePaying(ctx, before, 10)
		if err != nil || len(stale) != 1 {
			t.Fatalf("stale paying holds: %d, %v; want 1", len(stale), err)
		}
		// The runner submits again as the sweep looks: paying anew.
		en, err := f.entry(ctx, cy, h)
		if err != nil {
			t.Fatal(err)
		}
		err = d.WithTx(ctx, func(tx *db.Tx) error {
			ok, err := f.a.store.StartPaying(ctx, tx, en.Hold, cy.ID, en.Event.Price, en.Hold.Owed(en.Event), f.clock.Now())
			if err == nil && !ok {
				err = errors.New("not paying anew")
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.writer.SettlePaying(ctx, paying(stale[0]), before); err != nil {
			t.Fatal(err)
		}
		if st := status(); st != checkout.Paying {
			t.Fatalf("the sweep's settling opened a hold paying anew: %s", st)
		}
		if err := f.pay(ctx, cy, h, pay.CardPaid); err != nil {
			t.Fatalf("the runner's payment: %v", err)
		}
		f.paidOnce(ctx, h, 4500)
		// With nothing paying anew, a stale hold with no charge opens.
		dan := f.user()
		hd := f.filled(ctx, dan)
		if err := f.pay(ctx, dan, hd, pay.CardGatewayDown); !errors.Is(err, pay.ErrUnavailable) {
			t.Fatalf("gateway down: %v", err)
		}
		f.clock.Add(time.Hour + stalePaying + time.Minute)
		f.a.svc.writer.sweep()
		if got, _ := f.a.store.Hold(ctx, hd.ID); got.Status != checkout.Held || got.Attempt != hd.Attempt+1 {
			t.Errorf("a stale hold with no charge: %s, attempt %d; want open, attempt %d", got.Status, got.Attempt, hd.Attempt+1)
		}
	}, sets()...)
}

// A runner whose payment's answer was lost and who pays again with
// another card is told (409) that the first card's payment is being
// confirmed, with nothing charged; paying again with the first card
// finishes it, charged once.
func TestPayingAgainWithAnotherCard(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 4500)
		ctx := context.Background()
		u := f.user()
		h := f.filled(ctx, u)
		if err := f.pay(ctx, u, h, pay.CardAnswerLost); !errors.Is(err, pay.ErrUnavailable) {
			t.Fatalf("lost answer: %v; want unavailable", err)
		}
		err := f.pay(ctx, u, h, pay.CardPaid)
		if e := errs.As(err); e.Kind != errs.Conflict || !strings.Contains(e.Message, "still being confirmed") {
			t.Fatalf("another card: %v; want a conflict that says the first is being confirmed", err)
		}
		if err := f.pay(ctx, u, h, pay.CardAnswerLost); err != nil {
			t.Fatalf("the first card again: %v", err)
		}
		f.paidOnce(ctx, h, 4500)
	}, sets()...)
}

// A payment the proxy sends again under the same request id, after the
// instance that began it died between the charge and storing its outcome
// (the hold left paying), is not refused as a repeat: it finishes the
// payment, with the one charge.
func TestPaymentSentAgainByTheProxy(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 4500)
		ctx := context.Background()
		u := f.user()
		h := f.filled(ctx, u)
		if err := f.pay(db.WithRequestKey(ctx, "nginx-1"), u, h, pay.CardAnswerLost); !errors.Is(err, pay.ErrUnavailable) {
			t.Fatalf("first send: %v; want unavailable (charged, the answer lost)", err)
		}
		if err := f.pay(db.WithRequestKey(ctx, "nginx-1"), u, h, pay.CardAnswerLost); err != nil {
			t.Fatalf("the same send again: %v; want it paid", err)
		}
		f.paidOnce(ctx, h, 4500)
	}, sets()...)
}

// The payment's answer waits for the writer; a registration written before
// the wait began is found at once, not after the wait.
func TestWrittenHeardWhateverTheOrder(t *testing.T) {
	f := newFixture(t, dbtest.Open(t, "", sets()...), 5, 1000)
	ctx := context.Background()
	u := f.user()
	h, err := f.a.svc.Start(ctx, u, f.race, f.event().ID)
	if err == nil {
		err = f.fill(ctx, u, h)
	}
	if err == nil {
		err = f.pay(ctx, u, h, pay.CardPaid)
	}
	if err != nil {
		t.Fatal(err)
	}
	f.drain() // written before anyone waits
	start := time.Now()
	reg, err := f.a.svc.Written(ctx, h.ID, 10*time.Second)
	if err != nil || reg == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("Written: %v, %v after %v; want the registration at once", reg, err, time.Since(start))
	}
	// Not yet written: the wait ends when the writer writes it.
	v := f.user()
	hv := f.filled(ctx, v)
	go func() { // pays once Written listens: its wait is what ends
		w := f.a.svc.writer
		for deadline := time.Now().Add(10 * time.Second); w.Listening(hv.ID) == 0; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("Written did not listen for %s in 10 s: the wait this test is about did not happen", hv.ID)
				break
			}
		}
		f.pay(ctx, v, hv, pay.CardPaid)
	}()
	start = time.Now()
	if reg, err := f.a.svc.Written(ctx, hv.ID, 10*time.Second); err != nil || reg == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("Written while paying: %v, %v after %v", reg, err, time.Since(start))
	}
}

// A payment's answer hears its registration written, from the writer's
// news alone; a submit sent again after it was written finds it too (its
// news past: looked up), and so does one that finds the hold paid.
func TestPayWrittenHearsTheWrite(t *testing.T) {
	f := newFixture(t, dbtest.Open(t, "", sets()...), 5, 1000)
	ctx := context.Background()
	u := f.user()
	h := f.filled(ctx, u)
	en, err := f.entry(ctx, u, h)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if ok, err := f.a.svc.PayWritten(ctx, en, pay.CardPaid, "", 10*time.Second); err != nil || !ok || time.Since(start) > 5*time.Second {
		t.Fatalf("PayWritten: %v, %v after %v; want written at once", ok, err, time.Since(start))
	}
	// The same form sent again, after the write: the hold as the second
	// send read it (paid), and as it is now (done).
	for _, st := range []checkout.State{checkout.Paid, checkout.Done} {
		again, err := f.entry(ctx, u, h)
		if err != nil {
			t.Fatal(err)
		}
		again.Hold.Status = st
		if ok, err := f.a.svc.PayWritten(ctx, again, pay.CardPaid, "", 10*time.Second); err != nil || !ok {
			t.Errorf("sent again on a %s hold: %v, %v; want written", st.Name(), ok, err)
		}
	}
	if paid, _ := f.gw.Paid(ctx); len(paid) != 1 {
		t.Errorf("%d charges; want 1", len(paid))
	}
}
