package race

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/pay"
)

func TestRehearsalSettingsValidate(t *testing.T) {
	r := &Race{Events: []Event{{ID: 7, Name: "10K"}, {ID: 9, Name: "Half"}}}
	ok := RehearsalInput{Event: "7", Runners: "500", PageMin: "15", PageMax: "60", Within: "30", ClickMin: "5", ClickMax: "30", RefundDelay: "3600", Assets: true}
	s, f := ok.Validate(r)
	if len(f) > 0 || s != (RehearsalSettings{Event: 7, Runners: 500, PageMin: 15, PageMax: 60, Within: 30, ClickMin: 5, ClickMax: 30, RefundDelay: 3600, Assets: true}) {
		t.Fatalf("valid settings: %+v %v", s, f)
	}
	if s, f := (RehearsalInput{Event: "0", Runners: "1", PageMin: "0", PageMax: "0", Within: "1", ClickMin: "0", ClickMax: "0", RefundDelay: "0"}).Validate(r); len(f) > 0 || s.Event != 0 {
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
	} {
		in := ok
		c.change(&in)
		if _, f := in.Validate(r); f[c.field] == "" || len(f) != 1 {
			t.Errorf("%+v: errors %v; want one at %s", in, f, c.field)
		}
	}
	cp := *r
	cp.RehearsalOf = 3
	if _, f := ok.Validate(&cp); f["event"] == "" {
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

// Refusals before anything is stored: a gateway that moves money, an
// instance that does not listen on loopback.
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

// A director's stop reaches the instance at its next heartbeat; a
// rehearsal whose instance stopped beating is given up by the sweep, and
// another may start.
func TestRehearsalStopAndAbandon(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		ctx := context.Background()
		st := f.a.store
		now := f.clock.Now()
		rh := &Rehearsal{RaceID: f.race.ID, CreatedBy: f.race.OwnerID, CreatedAt: now, Settings: DefaultRehearsal}
		if err := st.AddRehearsal(ctx, rh, now.Add(-rehearsalAbandoned)); err != nil {
			t.Fatal(err)
		}
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
