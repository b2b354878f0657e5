package rehearsals_test

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/race/rehearsals"
)

// migrations are race's tables and those they stand on.
var migrations = []db.Migrations{db.KeyMigrations, auth.Migrations, jobs.Migrations, pay.Migrations, race.Migrations}

// clock is a test's time, moved by hand.
type clock struct{ ns atomic.Int64 }

func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }

// fixture is race whole on a fresh database, with one published race of
// one event, and its rehearsals.
type fixture struct {
	t     *testing.T
	d     *db.DB
	a     *race.App
	gw    *pay.Test
	clock *clock
	race  *race.Race
}

// newFixture's race has an event of places at price (cents), open now;
// opts change race's Deps before it is built.
func newFixture(t *testing.T, d *db.DB, places int, price int64, opts ...func(*race.Deps)) *fixture {
	t.Helper()
	c := &clock{}
	c.ns.Store(time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	gw := &pay.Test{DB: d, Now: c.Now}
	assets, err := race.Module().Assets()
	if err != nil {
		t.Fatal(err)
	}
	deps := race.Deps{DB: d, Cache: cache.New(cache.NewLocal(8 << 20)), Pay: gw, Now: c.Now, Assets: assets}
	for _, o := range opts {
		o(&deps)
	}
	a, err := race.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	f := &fixture{t: t, d: d, a: a, gw: gw, clock: c}
	ctx := context.Background()
	owner := &auth.User{Username: "dora", Email: "dora@example.com"}
	if err := d.WithTx(ctx, func(tx *db.Tx) error {
		return db.Scan(tx.QueryRow(ctx, `INSERT INTO users (username, username_key, email, email_key, password_hash, created_at, updated_at)
			VALUES (?, ?, ?, ?, 'x', 0, 0) RETURNING id`, owner.Username, owner.Username, owner.Email, owner.Email), &owner.ID)
	}); err != nil {
		t.Fatal(err)
	}
	slug := publish(t, a.Service(), owner, race.RaceInput{Name: "Spring 10K", Location: "Riverside", Date: "2027-04-10", TZ: "Europe/Berlin", Currency: "eur"},
		race.EventInput{Name: "10K", StartTime: "09:30", OpensDate: "2027-03-01", OpensTime: "12:00",
			ClosesDate: "2027-04-09", ClosesTime: "20:00", Price: checkout.Of(price, "").Decimal(), Cap: strconv.Itoa(places)})
	if f.race, err = a.Service().Race(ctx, slug); err != nil {
		t.Fatal(err)
	}
	return f
}

// publish has owner create race in through race's service, each step as
// the director's request does (the race loaded afresh), with a waiver and
// event ev, and publish it; its slug.
func publish(t *testing.T, svc *race.Service, owner *auth.User, in race.RaceInput, ev race.EventInput) string {
	t.Helper()
	ctx := context.Background()
	r, err := svc.CreateRace(ctx, owner, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []func(d *race.Directing) error{
		func(d *race.Directing) error {
			return svc.UpdateText(ctx, d, race.TextInput{Waiver: "I run at my own risk."})
		},
		func(d *race.Directing) error { return svc.AddEvent(ctx, d, ev) },
		func(d *race.Directing) error { return svc.Publish(ctx, d) },
	} {
		d, err := svc.Directed(ctx, owner, r.Slug)
		if err == nil {
			err = step(d)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return r.Slug
}

func (f *fixture) event() *race.Event { return &f.race.Events[0] }

// rehearsals is the fixture's rehearsal console.
func (f *fixture) rehearsals() *rehearsals.App { return f.a.Rehearsals() }

// directing is the race as its director's request has it.
func (f *fixture) directing() *races.Directing {
	f.t.Helper()
	d, err := f.a.Service().Directed(context.Background(), &auth.User{ID: f.race.OwnerID}, f.race.Slug)
	if err != nil {
		f.t.Fatal(err)
	}
	return &races.Directing{User: d.User, Race: &d.Race.Race}
}

// sweep runs race's sweep (the writer's, every 10 s by itself) now.
func (f *fixture) sweep() { f.a.Service().Sweep(context.Background()) }
