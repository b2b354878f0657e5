package rehearsals_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/race/rehearsals"
)

// realMoney is a gateway that charges for real.
type realMoney struct{ pay.Gateway }

func (realMoney) MovesNoMoney() bool { return false }

// Refusals before anything is stored: no jobs to refund with, a gateway
// that moves money, an instance that does not listen on loopback.
func TestRehearsalRefusedWhereItCannotBeSafe(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		ctx := context.Background()
		dir := f.directing()
		rhs := f.rehearsals()
		in := rehearsals.DefaultInput()
		in.Event = strconv.FormatInt(f.event().ID, 10)
		rhs.Listening = func() string { return "127.0.0.1:1" }
		_, err := rhs.Start(ctx, dir, in)
		if e := errs.As(err); e == nil || e.Kind != errs.Conflict || !strings.Contains(e.Message, "no background jobs") {
			t.Errorf("without jobs to refund with: %v", err)
		}
		rhs.Jobs = jobs.New(d, jobs.Options{})
		rhs.Pay = realMoney{f.gw}
		rhs.Listening = func() string { return "127.0.0.1:1" }
		_, err = rhs.Start(ctx, dir, in)
		if e := errs.As(err); e == nil || e.Kind != errs.Conflict || !strings.Contains(e.Message, "moves real money") {
			t.Errorf("with a real gateway: %v", err)
		}
		rhs.Pay = f.gw
		rhs.Listening = func() string { return "192.0.2.1:8080" }
		_, err = rhs.Start(ctx, dir, in)
		if e := errs.As(err); e == nil || e.Kind != errs.Conflict || !strings.Contains(e.Message, "loopback") {
			t.Errorf("not on loopback: %v", err)
		}
		if list, err := rhs.List(ctx, f.race.ID); err != nil || len(list) != 0 {
			t.Errorf("rehearsals stored after refusals: %v, %v", list, err)
		}
	}, migrations...)
}

// addRehearsal stores a rehearsal of the fixture's race, begun now.
func (f *fixture) addRehearsal() *rehearsals.Rehearsal {
	f.t.Helper()
	now := f.clock.Now()
	rh := &rehearsals.Rehearsal{RaceID: f.race.ID, CreatedBy: f.race.OwnerID, CreatedAt: now, Settings: rehearsals.Defaults}
	if err := f.rehearsals().Add(context.Background(), rh, now.Add(-rehearsals.Abandoned)); err != nil {
		f.t.Fatal(err)
	}
	return rh
}

// A director's stop reaches the instance at its next heartbeat; a
// rehearsal whose instance stopped beating is given up by the sweep, and
// another may start.
func TestRehearsalStopAndAbandon(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		ctx := context.Background()
		st := f.rehearsals()
		now := f.clock.Now()
		rh := f.addRehearsal()
		if got, err := st.Beat(ctx, rh.ID, "running", rehearsals.Progress{Stage: "running", Arrived: 3}, "", now); err != nil || got != "running" {
			t.Fatalf("beat: %q, %v", got, err)
		}
		other := &rehearsals.Rehearsal{RaceID: f.race.ID, CreatedBy: f.race.OwnerID, CreatedAt: now, Settings: rehearsals.Defaults}
		if err := st.Add(ctx, other, now.Add(-rehearsals.Abandoned)); errs.As(err) == nil || errs.As(err).Kind != errs.Conflict {
			t.Fatalf("a second at once: %v; want a conflict", err)
		}
		if err := st.Stop(ctx, f.race.ID, rh.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := st.Beat(ctx, rh.ID, "running", rehearsals.Progress{Stage: "running", Arrived: 5}, "", now); err != nil || got != "stopping" {
			t.Fatalf("beat after the stop: %q, %v; want stopping", got, err)
		}
		// A stop while it prepares (accounts, the copy) holds too.
		if _, err := d.Exec(ctx, `UPDATE race_rehearsals SET status = 'preparing' WHERE id = ?`, rh.ID); err != nil {
			t.Fatal(err)
		}
		if err := st.Stop(ctx, f.race.ID, rh.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := st.Beat(ctx, rh.ID, "preparing", rehearsals.Progress{Stage: "copy", Arrived: 5}, "", now); err != nil || got != "stopping" {
			t.Fatalf("preparing beat after the stop: %q, %v; want stopping", got, err)
		}
		// The instance dies: no beat for longer than rehearsals.Abandoned.
		f.clock.Add(rehearsals.Abandoned + time.Second)
		f.sweep()
		got, err := st.Get(ctx, f.race.ID, rh.ID)
		if err != nil || got.Status != "failed" || !strings.Contains(got.Error, "instance running it stopped") || got.Progress.Arrived != 5 || got.FinishedAt == nil {
			t.Fatalf("after the sweep: %+v, %v", got, err)
		}
		if _, err := st.Beat(ctx, rh.ID, "running", rehearsals.Progress{}, "", f.clock.Now()); err == nil {
			t.Error("a beat of a given-up rehearsal was taken")
		}
		other.CreatedAt = f.clock.Now()
		if err := st.Add(ctx, other, f.clock.Now().Add(-rehearsals.Abandoned)); err != nil {
			t.Errorf("a new rehearsal after the dead one: %v", err)
		}
	}, migrations...)
}

// After a rehearsal: its registration is refunded after the refund delay,
// its copy and runners stay for an hour after the end for the director,
// then the sweep removes them, keeping the counts; the race itself and
// other accounts stay.
func TestRehearsalCleanedUpAfterAnHour(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		queue := jobs.New(d, jobs.Options{}) // refunds queued, not run here
		f := newFixture(t, d, 10, 3000, func(deps *race.Deps) { deps.Jobs = queue })
		ctx := context.Background()
		st := f.rehearsals()
		now := f.clock.Now()
		rh := f.addRehearsal()
		ids, err := auth.PlaceholderUsers(ctx, d, rehearsals.Prefix(rh.ID), rehearsals.Domain, 3, now)
		if err != nil || len(ids) != 3 {
			t.Fatalf("runners %v, %v", ids, err)
		}
		// The race, with last year's event too: the copy has the event to
		// come alone.
		last := now.AddDate(-1, 0, 0).UnixMilli()
		if _, err := d.Exec(ctx, `INSERT INTO race_events (race_id, name, starts_at, opens_at, closes_at, price, cap, created_at)
			VALUES (?, 'Last year', ?, ?, ?, 0, 5, 0)`, f.race.ID, last, last-1000, last-500); err != nil {
			t.Fatal(err)
		}
		cp, copied, err := st.Copy(ctx, &f.race.Race, rh.ID, f.race.OwnerID, now.Add(-time.Minute), now.Add(2*time.Hour), now)
		if err != nil {
			t.Fatal(err)
		}
		if len(cp.Events) != 1 || len(copied) != 1 || copied[f.event().ID] != cp.Events[0].ID || cp.Events[0].Cap != 10 {
			t.Fatalf("copy's events %+v, %v; want the 10K alone, 10 places", cp.Events, copied)
		}
		// One runner registers in the copy, through the service.
		u := &auth.User{ID: ids[0], Username: rehearsals.Prefix(rh.ID) + "1", Email: rehearsals.Prefix(rh.ID) + "1@" + rehearsals.Domain}
		svc := f.a.Service()
		copyRace, err := svc.Race(ctx, cp.Slug)
		if err != nil {
			t.Fatal(err)
		}
		h, err := svc.Start(ctx, u, copyRace, cp.Events[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		entry := func() *race.Entry {
			en, err := svc.Entry(ctx, u, cp.Slug, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			return en
		}
		if err := svc.SaveEntrant(ctx, entry(), race.EntrantInput{FirstName: "Rehearsal", LastName: "Runner", Email: u.Email,
			BirthDate: "1990-05-01", Gender: "F", Emergency: "Bo, +49 30 1234567"}); err != nil {
			t.Fatal(err)
		}
		if err := svc.AcceptWaiver(ctx, entry(), true); err != nil {
			t.Fatal(err)
		}
		if err := svc.Pay(ctx, entry(), pay.CardPaid, ""); err != nil {
			t.Fatal(err)
		}
		if reg, err := svc.Written(ctx, h.ID, 30*time.Second); err != nil || reg == nil {
			t.Fatalf("the copy's registration: %v, %v; want written", reg, err)
		}
		if _, err := st.Beat(ctx, rh.ID, "done", rehearsals.Progress{Stage: "ended"}, `{}`, now); err != nil {
			t.Fatal(err)
		}
		runners := func() (n int) {
			if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM users WHERE email_key LIKE ?`, "%@"+rehearsals.Domain), &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		// Half an hour on: refunded (its delay is a minute), kept.
		f.clock.Add(30 * time.Minute)
		f.sweep()
		got, err := st.Get(ctx, f.race.ID, rh.ID)
		if err != nil || got.CopyID != cp.ID || runners() != 3 {
			t.Fatalf("after 30 min: copy %d, %d runners, %v; want the copy and 3 runners kept", got.CopyID, runners(), err)
		}
		if made, refunded, err := st.Refunds(ctx, got); err != nil || made != 1 || refunded != 1 {
			t.Fatalf("after 30 min: %d made, %d refunded, %v; want 1 and 1", made, refunded, err)
		}
		if c, err := queue.Counts(ctx); err != nil || c.Ready != 1 {
			t.Errorf("refund jobs %+v, %v; want 1", c, err)
		}
		// An hour and more after the end: the copy and the runners go.
		f.clock.Add(31 * time.Minute)
		f.sweep()
		got, err = st.Get(ctx, f.race.ID, rh.ID)
		if err != nil || got.CopyID != 0 || got.Made != 1 || got.Refunded != 1 || got.CleanedAt == nil {
			t.Fatalf("after 61 min: %+v, %v; want the copy gone, 1 made and refunded, cleaned", got, err)
		}
		if n := runners(); n != 0 {
			t.Errorf("%d rehearsal runners left", n)
		}
		if _, err := f.a.Store().RaceBySlug(ctx, d, cp.Slug); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("the copy: %v; want gone", err)
		}
		if _, err := f.a.Store().RaceBySlug(ctx, d, f.race.Slug); err != nil {
			t.Errorf("the race itself: %v", err)
		}
		var owners int
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM users WHERE id = ?`, f.race.OwnerID), &owners); err != nil || owners != 1 {
			t.Errorf("the director's account: %d, %v", owners, err)
		}
	}, migrations...)
}
