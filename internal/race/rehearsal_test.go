package race

import (
	"context"
	"errors"
	"github.com/tutti-dev/tutti/internal/race/races"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

func TestRehearsalSettingsValidate(t *testing.T) {
	now := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	r := &Race{Race: races.Race{Events: []Event{{ID: 7, Name: "10K", StartsAt: now.AddDate(0, 1, 0)}, {ID: 9, Name: "Half", StartsAt: now.AddDate(0, 1, 0)},
		{ID: 5, Name: "Last year's 10K", StartsAt: now.AddDate(-1, 0, 0)}}}}
	ok := RehearsalInput{Event: "7", Runners: "500", PageMin: "15", PageMax: "60", Within: "30", ClickMin: "5", ClickMax: "30", RefundDelay: "3600", Assets: true}
	s, f := ok.Validate(r, now)
	if len(f) > 0 || s != (RehearsalSettings{Event: 7, Runners: 500, PageMin: 15, PageMax: 60, Within: 30, ClickMin: 5, ClickMax: 30, RefundDelay: 3600, Assets: true}) {
		t.Fatalf("valid settings: %+v %v", s, f)
	}
	if s, f := (RehearsalInput{Event: "0", Runners: "1", PageMin: "0", PageMax: "0", Within: "1", ClickMin: "0", ClickMax: "0", RefundDelay: "0"}).Validate(r, now); len(f) > 0 || s.Event != 0 {
		t.Errorf("a random event: %+v %v", s, f)
	}
	for _, c := range []struct {
		change func(*RehearsalInput)
		field  string
	}{
		{func(in *RehearsalInput) { in.Runners = "50001" }, "runners"},
		{func(in *RehearsalInput) { in.Runners = "-1" }, "runners"},
		{func(in *RehearsalInput) { in.Runners = "1e9" }, "runners"},
		{func(in *RehearsalInput) { in.PageMax = "10" }, "page_max"}, // below the shortest
		{func(in *RehearsalInput) { in.PageMin = "601" }, "page_min"},
		{func(in *RehearsalInput) { in.Within = "0" }, "within"},
		{func(in *RehearsalInput) { in.ClickMax = "4" }, "click_max"},
		{func(in *RehearsalInput) { in.RefundDelay = "604801" }, "refund_delay"},
		{func(in *RehearsalInput) { in.Event = "8" }, "event"},
		{func(in *RehearsalInput) { in.Event = "x" }, "event"},
		{func(in *RehearsalInput) { in.Event = "5" }, "event"}, // started
	} {
		in := ok
		c.change(&in)
		if _, f := in.Validate(r, now); f[c.field] == "" || len(f) != 1 {
			t.Errorf("%+v: errors %v; want one at %s", in, f, c.field)
		}
	}
	cp := *r
	cp.RehearsalOf = 3
	if _, f := ok.Validate(&cp, now); f["event"] == "" {
		t.Error("a rehearsal of a rehearsal's copy was not refused")
	}
}

func TestSelfURL(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1:8080": "http://127.0.0.1:8080",
		":8080":          "http://127.0.0.1:8080",
		"0.0.0.0:80":     "http://127.0.0.1:80",
		"[::]:80":        "http://127.0.0.1:80",
		"[::1]:8080":     "http://[::1]:8080",
		"localhost:9":    "http://localhost:9",
		"10.0.0.5:8080":  "",
		"":               "",
	} {
		got, err := SelfURL(addr)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("SelfURL(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
}

// realMoney is a gateway that charges for real.
type realMoney struct{ pay.Gateway }

func (realMoney) MovesNoMoney() bool { return false }

// Refusals before anything is stored: no jobs to refund with, a gateway
// that moves money, an instance that does not listen on loopback.
func TestRehearsalRefusedWhereItCannotBeSafe(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		ctx := context.Background()
		dir, err := f.a.svc.Directed(ctx, &auth.User{ID: f.race.OwnerID}, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		in := DefaultRehearsal.Input()
		in.Event = i64(f.event().ID)
		f.a.svc.listening = func() string { return "127.0.0.1:1" }
		_, err = f.a.svc.StartRehearsal(ctx, dir, in)
		if e := errs.As(err); e == nil || e.Kind != errs.Conflict || !strings.Contains(e.Message, "no background jobs") {
			t.Errorf("without jobs to refund with: %v", err)
		}
		f.a.svc.jobs = jobs.New(d, jobs.Options{})
		f.a.svc.pay = realMoney{f.gw}
		f.a.svc.listening = func() string { return "127.0.0.1:1" }
		_, err = f.a.svc.StartRehearsal(ctx, dir, in)
		if e := errs.As(err); e == nil || e.Kind != errs.Conflict || !strings.Contains(e.Message, "moves real money") {
			t.Errorf("with a real gateway: %v", err)
		}
		f.a.svc.pay = f.gw
		f.a.svc.listening = func() string { return "192.0.2.1:8080" }
		_, err = f.a.svc.StartRehearsal(ctx, dir, in)
		if e := errs.As(err); e == nil || e.Kind != errs.Conflict || !strings.Contains(e.Message, "loopback") {
			t.Errorf("not on loopback: %v", err)
		}
		if list, err := f.a.store.Rehearsals(ctx, f.race.ID, 10); err != nil || len(list) != 0 {
			t.Errorf("rehearsals stored after refusals: %v, %v", list, err)
		}
	}, sets()...)
}

// addRehearsal stores a rehearsal of the fixture's race, begun now.
func (f *fixture) addRehearsal() *Rehearsal {
	f.t.Helper()
	now := f.clock.Now()
	rh := &Rehearsal{RaceID: f.race.ID, CreatedBy: f.race.OwnerID, CreatedAt: now, Settings: DefaultRehearsal}
	if err := f.a.store.AddRehearsal(context.Background(), rh, now.Add(-rehearsalAbandoned)); err != nil {
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
		st := f.a.store
		now := f.clock.Now()
		rh := f.addRehearsal()
		if got, err := st.RehearsalBeat(ctx, rh.ID, "running", RehearsalProgress{Stage: "running", Arrived: 3}, "", "", now); err != nil || got != "running" {
			t.Fatalf("beat: %q, %v", got, err)
		}
		other := &Rehearsal{RaceID: f.race.ID, CreatedBy: f.race.OwnerID, CreatedAt: now, Settings: DefaultRehearsal}
		if err := st.AddRehearsal(ctx, other, now.Add(-rehearsalAbandoned)); errs.As(err) == nil || errs.As(err).Kind != errs.Conflict {
			t.Fatalf("a second at once: %v; want a conflict", err)
		}
		if err := st.StopRehearsal(ctx, f.race.ID, rh.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := st.RehearsalBeat(ctx, rh.ID, "running", RehearsalProgress{Stage: "running", Arrived: 5}, "", "", now); err != nil || got != "stopping" {
			t.Fatalf("beat after the stop: %q, %v; want stopping", got, err)
		}
		// A stop while it prepares (accounts, the copy) holds too.
		if _, err := d.Exec(ctx, `UPDATE race_rehearsals SET status = 'preparing' WHERE id = ?`, rh.ID); err != nil {
			t.Fatal(err)
		}
		if err := st.StopRehearsal(ctx, f.race.ID, rh.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := st.RehearsalBeat(ctx, rh.ID, "preparing", RehearsalProgress{Stage: "copy", Arrived: 5}, "", "", now); err != nil || got != "stopping" {
			t.Fatalf("preparing beat after the stop: %q, %v; want stopping", got, err)
		}
		// The instance dies: no beat for longer than rehearsalAbandoned.
		f.clock.Add(rehearsalAbandoned + time.Second)
		f.a.svc.writer.sweep()
		got, err := st.Rehearsal(ctx, f.race.ID, rh.ID)
		if err != nil || got.Status != "failed" || !strings.Contains(got.Error, "instance running it stopped") || got.Progress.Arrived != 5 || got.FinishedAt == nil {
			t.Fatalf("after the sweep: %+v, %v", got, err)
		}
		if _, err := st.RehearsalBeat(ctx, rh.ID, "running", RehearsalProgress{}, "", "", f.clock.Now()); err == nil {
			t.Error("a beat of a given-up rehearsal was taken")
		}
		other.CreatedAt = f.clock.Now()
		if err := st.AddRehearsal(ctx, other, f.clock.Now().Add(-rehearsalAbandoned)); err != nil {
			t.Errorf("a new rehearsal after the dead one: %v", err)
		}
	}, sets()...)
}

// After a rehearsal: its registration is refunded after the refund delay,
// its copy and runners stay for an hour after the end for the director,
// then the sweep removes them, keeping the counts; the race itself and
// other accounts stay.
func TestRehearsalCleanedUpAfterAnHour(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		f.a.svc.jobs = jobs.New(d, jobs.Options{}) // refunds queued, not run here
		ctx := context.Background()
		st := f.a.store
		now := f.clock.Now()
		rh := f.addRehearsal()
		ids, err := auth.PlaceholderUsers(ctx, d, rehearsalPrefix(rh.ID), rehearsalDomain, 3, now)
		if err != nil || len(ids) != 3 {
			t.Fatalf("runners %v, %v", ids, err)
		}
		// The race as the director sees it, with last year's event too:
		// the copy has the event to come alone.
		src := *f.race
		src.Events = append(src.Events, Event{ID: 99999, Name: "Last year", StartsAt: now.AddDate(-1, 0, 0), Cap: 5})
		var cp *Race
		var copied map[int64]int64
		if err := d.WithTx(ctx, func(tx *db.Tx) error {
			var err error
			cp, copied, err = st.CopyRace(ctx, tx, &src, rh.ID, f.race.OwnerID, now.Add(-time.Minute), now.Add(2*time.Hour), now)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if len(cp.Events) != 1 || len(copied) != 1 || copied[f.event().ID] != cp.Events[0].ID || cp.Events[0].Cap != 10 {
			t.Fatalf("copy's events %+v, %v; want the 10K alone, 10 places", cp.Events, copied)
		}
		// One runner registers in the copy, through the service.
		u := &auth.User{ID: ids[0], Username: rehearsalPrefix(rh.ID) + "1", Email: rehearsalPrefix(rh.ID) + "1@" + rehearsalDomain}
		race, err := f.a.svc.published(ctx, cp.Slug)
		if err != nil {
			t.Fatal(err)
		}
		h, err := f.a.svc.Start(ctx, u, race, cp.Events[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		entry := func() *Entry {
			en, err := f.a.svc.Entry(ctx, u, cp.Slug, h.ID)
			if err != nil {
				t.Fatal(err)
			}
			return en
		}
		if err := f.a.svc.SaveEntrant(ctx, entry(), EntrantInput{FirstName: "Rehearsal", LastName: "Runner", Email: u.Email,
			BirthDate: "1990-05-01", Gender: "F", Emergency: "Bo, +49 30 1234567"}); err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.AcceptWaiver(ctx, entry(), true); err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.Pay(ctx, entry(), pay.CardPaid, ""); err != nil {
			t.Fatal(err)
		}
		f.drain()
		if _, err := st.RehearsalBeat(ctx, rh.ID, "done", RehearsalProgress{Stage: "ended"}, `{}`, "", now); err != nil {
			t.Fatal(err)
		}
		runners := func() (n int) {
			if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM users WHERE email_key LIKE ?`, "%@"+rehearsalDomain), &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		// Half an hour on: refunded (its delay is a minute), kept.
		f.clock.Add(30 * time.Minute)
		f.a.svc.writer.sweep()
		got, err := st.Rehearsal(ctx, f.race.ID, rh.ID)
		if err != nil || got.CopyID != cp.ID || runners() != 3 {
			t.Fatalf("after 30 min: copy %d, %d runners, %v; want the copy and 3 runners kept", got.CopyID, runners(), err)
		}
		if made, refunded, err := f.a.svc.RehearsalRefunds(ctx, got); err != nil || made != 1 || refunded != 1 {
			t.Fatalf("after 30 min: %d made, %d refunded, %v; want 1 and 1", made, refunded, err)
		}
		if c, err := f.a.svc.jobs.Counts(ctx); err != nil || c.Ready != 1 {
			t.Errorf("refund jobs %+v, %v; want 1", c, err)
		}
		// An hour and more after the end: the copy and the runners go.
		f.clock.Add(31 * time.Minute)
		f.a.svc.writer.sweep()
		got, err = st.Rehearsal(ctx, f.race.ID, rh.ID)
		if err != nil || got.CopyID != 0 || got.Made != 1 || got.Refunded != 1 || got.CleanedAt == nil {
			t.Fatalf("after 61 min: %+v, %v; want the copy gone, 1 made and refunded, cleaned", got, err)
		}
		if n := runners(); n != 0 {
			t.Errorf("%d rehearsal runners left", n)
		}
		if _, err := st.RaceBySlug(ctx, d, cp.Slug); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("the copy: %v; want gone", err)
		}
		if _, err := st.RaceBySlug(ctx, d, f.race.Slug); err != nil {
			t.Errorf("the race itself: %v", err)
		}
		var owners int
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM users WHERE id = ?`, f.race.OwnerID), &owners); err != nil || owners != 1 {
			t.Errorf("the director's account: %d, %v", owners, err)
		}
	}, sets()...)
}
