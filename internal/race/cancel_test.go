package race

import (
	"context"
	"testing"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
)

// Cancelling a registration that is another race's, or none, is not found
// (404), as check-in answers; one of this race's cancelled twice is a
// conflict, and another race's stays confirmed.
func TestCancelNotThisRaceIsNotFound(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		f.a.svc.jobs = jobs.New(d, jobs.Options{})
		ctx := context.Background()
		u := f.user()
		h := f.filled(ctx, u)
		if err := f.pay(ctx, u, h, "4242424242424242"); err != nil {
			t.Fatal(err)
		}
		f.drain()
		reg, err := f.a.svc.Written(ctx, h.ID, 0)
		if err != nil || reg == nil {
			t.Fatalf("registration: %v, %v", reg, err)
		}
		dir2 := f.otherRace()
		for _, id := range []int64{reg.ID, 1 << 40} {
			if _, err := f.a.svc.Cancel(ctx, dir2, id); errs.KindOf(err) != errs.NotFound {
				t.Errorf("cancelling registration %d, not this race's: %v; want not found", id, err)
			}
		}
		if _, confirmed, _, _ := f.counts(); confirmed != 1 {
			t.Errorf("confirmed after the refused cancellations: %d; want 1", confirmed)
		}
		dir, err := f.a.svc.Directed(ctx, &auth.User{ID: f.race.OwnerID}, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.svc.Cancel(ctx, dir, reg.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.svc.Cancel(ctx, dir, reg.ID); errs.KindOf(err) != errs.Conflict {
			t.Errorf("cancelling twice: %v; want a conflict", err)
		}
	}, sets()...)
}

// otherRace is another director's race, directed by them.
func (f *fixture) otherRace() *Directing {
	f.t.Helper()
	ctx := context.Background()
	other := f.user()
	r, err := f.a.svc.CreateRace(ctx, other, RaceInput{Name: "Autumn 5K", Location: "Parkside", Date: "2027-09-10", TZ: "Europe/Berlin", Currency: "eur"})
	if err != nil {
		f.t.Fatal(err)
	}
	d, err := f.a.svc.Directed(ctx, other, r.Slug)
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}
