package race

import (
	"context"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// deleteAccount deletes u as the auth service does: the hook, then the
// users row (its race rows go by cascade), in one transaction.
func (f *fixture) deleteAccount(u *auth.User) error {
	ctx := context.Background()
	err := f.d.WithTx(ctx, func(tx *db.Tx) error {
		if err := f.a.ForgetAccount(ctx, tx, u.ID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `DELETE FROM users WHERE id = ?`, u.ID)
		return err
	})
	if err == nil {
		f.a.AccountForgotten(ctx, u.ID)
	}
	return err
}

// Deleted accounts give back what they held: a hold's place and store
// unit, a registration's place (refunded), a place in the waiting list; a
// payment under way and a race directed alone refuse the deletion until
// it is settled or handed over; the race then goes to its co-director.
func TestAccountDeletionGivesBackItsPlaces(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 3, 3000)
		f.withExtras(3)
		f.a.svc.jobs = jobs.New(d, jobs.Options{}) // refunds queued, not run here
		ctx := context.Background()
		ann, bo, cy, dee := f.user(), f.user(), f.user(), f.user()
		race := func() *Race {
			r, err := f.a.svc.published(ctx, f.race.Slug)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		start := func(u *auth.User) *Hold {
			h, err := f.a.svc.Start(ctx, u, race(), f.event().ID)
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		ha, hb := start(ann), start(bo)
		start(cy)
		// Ann: a hold with a shirt; bo: registered and paid; dee waits.
		if err := f.throughExtras(ctx, ann, ha, "0", 1, false); err != nil {
			t.Fatal(err)
		}
		if err := f.throughExtras(ctx, bo, hb, "0", 0, true); err != nil {
			t.Fatal(err)
		}
		if err := f.pay(ctx, bo, hb, pay.CardPaid); err != nil {
			t.Fatal(err)
		}
		f.drain()
		if err := f.a.svc.waitlist.Join(ctx, dee, &race().Race, f.event().ID); err != nil {
			t.Fatal(err)
		}
		if taken, confirmed, _, _ := f.counts(); taken != 3 || confirmed != 1 || f.itemTaken(0) != 1 || race().Events[0].Waiting != 1 {
			t.Fatalf("before: taken %d confirmed %d shirts %d waiting %d", taken, confirmed, f.itemTaken(0), race().Events[0].Waiting)
		}
		for _, u := range []*auth.User{ann, bo, dee} {
			if err := f.deleteAccount(u); err != nil {
				t.Fatalf("deleting %s: %v", u.Username, err)
			}
		}
		taken, confirmed, regs, live := f.counts()
		if taken != 1 || confirmed != 0 || regs != 0 || live != 1 || f.itemTaken(0) != 0 || race().Events[0].Waiting != 0 {
			t.Errorf("after: taken %d confirmed %d regs %d live %d shirts %d waiting %d; want cy's hold alone",
				taken, confirmed, regs, live, f.itemTaken(0), race().Events[0].Waiting)
		}
		if c, err := f.a.svc.jobs.Counts(ctx); err != nil || c.Ready != 1 {
			t.Errorf("refund jobs %+v, %v; want bo's", c, err)
		}
		// A payment under way: not now.
		eve := f.user()
		he := start(eve)
		if _, err := d.Exec(ctx, `UPDATE race_holds SET status = 'paying' WHERE id = ?`, he.ID); err != nil {
			t.Fatal(err)
		}
		if err := f.deleteAccount(eve); errs.As(err) == nil || errs.As(err).Kind != errs.Conflict {
			t.Errorf("deleting during a payment: %v; want a conflict", err)
		}
		// The director, alone: refused, with the race's name; with a
		// co-director, the race is theirs.
		owner := &auth.User{ID: f.race.OwnerID, Username: "owner"}
		err := f.deleteAccount(owner)
		if e := errs.As(err); e == nil || e.Kind != errs.Conflict || !strings.Contains(e.Message, "Spring 10K") {
			t.Fatalf("deleting the lone director: %v", err)
		}
		co := f.user()
		if err := f.d.WithTx(ctx, func(tx *db.Tx) error { return f.a.store.AddDirector(ctx, tx, f.race.ID, co.ID, f.clock.Now()) }); err != nil {
			t.Fatal(err)
		}
		if err := f.deleteAccount(owner); err != nil {
			t.Fatalf("deleting the director with a co-director: %v", err)
		}
		if r := race(); r.OwnerID != co.ID {
			t.Errorf("owner after the deletion %d; want the co-director %d", r.OwnerID, co.ID)
		}
	}, sets()...)
}
