package race

import (
	"context"
	"github.com/tutti-dev/tutti/internal/race/races"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
)

// A share is exact integer arithmetic, rounded to the nearest minor unit,
// halves up.
func TestShare(t *testing.T) {
	for _, c := range []struct {
		paid    int64
		percent int
		want    int64
	}{
		{5050, 50, 2525},               // 25.25 of 50.50
		{1001, 33, 330},                // 3.3033 -> 3.30
		{1005, 50, 503},                // 5.025 -> 5.03 (half up)
		{999, 99, 989},                 // 9.8901 -> 9.89
		{1, 1, 0},                      // 0.0001 -> nothing
		{5050, 100, 5050},              // all
		{5050, 0, 0},                   // none
		{10_000_00 * 3, 67, 2_010_000}, // no float drift on large amounts
	} {
		if got := Share(c.paid, c.percent); got != c.want {
			t.Errorf("Share(%d, %d) = %d; want %d", c.paid, c.percent, got, c.want)
		}
	}
}

// The rule's form: a share from 1 to 99 for a partial refund, a rule
// chosen, dates with their times or neither, through walltime's rule (a
// skipped time is refused, a repeated one is its first occurrence).
func TestPolicyInputValidate(t *testing.T) {
	r := &Race{Race: races.Race{TZ: "Europe/Berlin", Date: "2027-11-10"}}
	for _, c := range []struct {
		in    PolicyInput
		field string // "" for valid
	}{
		{PolicyInput{Refund: "none"}, ""},
		{PolicyInput{Refund: "full", UntilDate: "2027-11-01", UntilTime: "23:59"}, ""},
		{PolicyInput{Refund: "partial", Percent: "50 %"}, ""},
		{PolicyInput{Refund: "partial", Percent: "0"}, "percent"},
		{PolicyInput{Refund: "partial", Percent: "100"}, "percent"},
		{PolicyInput{Refund: "partial", Percent: "12.5"}, "percent"},
		{PolicyInput{Refund: "partial"}, "percent"},
		{PolicyInput{Refund: "some"}, "refund"},
		{PolicyInput{Refund: ""}, "refund"},
		{PolicyInput{Refund: "none", EditDate: "2027-11-01"}, "edit_until"},
		{PolicyInput{Refund: "none", EditDate: "2027-13-01", EditTime: "10:00"}, "edit_until"},
		{PolicyInput{Refund: "full", UntilTime: "10:00"}, "refund_until"},
		{PolicyInput{Refund: "none", EditDate: "2027-03-28", EditTime: "02:30"}, "edit_until"}, // the clock skips it
	} {
		_, _, f := c.in.Validate(r)
		switch {
		case c.field == "" && len(f) > 0:
			t.Errorf("%+v: %v; want valid", c.in, f)
		case c.field != "" && f[c.field] == "":
			t.Errorf("%+v: %v; want a message at %s", c.in, f, c.field)
		}
	}
	_, _, f := PolicyInput{Refund: "none", EditDate: "2027-03-28", EditTime: "02:30"}.Validate(r)
	if !strings.Contains(f["edit_until"], "does not exist") {
		t.Errorf("a skipped time's message: %q", f["edit_until"])
	}
	// 02:30 on 31 October 2027 happens twice in Berlin: the first, summer
	// time's (00:30 UTC).
	until, rf, f := PolicyInput{Refund: "partial", Percent: "40", EditDate: "2027-10-31", EditTime: "02:30",
		UntilDate: "2027-10-31", UntilTime: "02:30"}.Validate(r)
	want := time.Date(2027, 10, 31, 0, 30, 0, 0, time.UTC)
	if len(f) > 0 || until == nil || !until.Equal(want) || rf.Until == nil || !rf.Until.Equal(want) || rf.Percent != 40 {
		t.Errorf("repeated hour: %v %+v %v; want %v and 40 %%", until, rf, f, want)
	}
	if _, rf, _ := (PolicyInput{Refund: "none", UntilDate: "2027-10-01", UntilTime: "10:00"}).Validate(r); rf.Until != nil || rf.Percent != 0 {
		t.Errorf("no refund keeps a date: %+v", rf)
	}
}

// registered is a new runner registered and paid for the fixture's
// event, and their entry.
func (f *fixture) registered(ctx context.Context) (*auth.User, *Entry) {
	f.t.Helper()
	u := f.user()
	h := f.filled(ctx, u)
	if err := f.pay(ctx, u, h, "4242424242424242"); err != nil {
		f.t.Fatal(err)
	}
	f.drain()
	en, err := f.entry(ctx, u, h)
	if err != nil {
		f.t.Fatal(err)
	}
	return u, en
}

// setPolicy has the director set the rule (times on Berlin's clock).
func (f *fixture) setPolicy(in PolicyInput) {
	f.t.Helper()
	if err := f.a.svc.SetPolicy(context.Background(), f.director(), in); err != nil {
		f.t.Fatal(err)
	}
}

// A runner changes their name, T-shirt size and team until the cutoff,
// with the wizard's checks (nothing written when refused), and is refused
// after it; a team left empty goes. Nobody is mailed for their own change.
func TestRunnerChangesUntilTheCutoff(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		ctx := context.Background()
		u, en := f.registered(ctx)
		if err := f.a.svc.SetExtras(ctx, f.director(), ExtrasInput{Teams: true, Shirts: true}); err != nil {
			t.Fatal(err)
		}
		// The cutoff: 14:00 in Berlin on the fixture's day (13:00 UTC),
		// an hour from now.
		f.setPolicy(PolicyInput{Refund: "none", EditDate: "2027-03-01", EditTime: "14:00"})
		en, _ = f.entry(ctx, u, en.Hold)
		o, err := f.a.svc.Own(ctx, en)
		if err != nil || !o.CanEdit() || !o.EditBy.Equal(time.Date(2027, 3, 1, 13, 0, 0, 0, time.UTC)) {
			t.Fatalf("own: %+v, %v; want editable until 13:00 UTC", o, err)
		}
		err = f.a.svc.ChangeOwn(ctx, en, ChangeInput{FirstName: " ", LastName: "Lee", Shirt: "XXXL", Team: "Harbour Harriers"})
		if fe := errs.FieldsOf(err); fe["first_name"] == "" || fe["shirt"] == "" || len(fe) != 2 {
			t.Errorf("bad change: %v; want first_name and shirt refused", err)
		}
		if reg, _ := f.a.store.RegistrationByHold(ctx, en.Hold.ID); reg.LastName == "Lee" || reg.TeamID != 0 {
			t.Errorf("a refused change wrote: %+v", reg)
		}
		if err := f.a.svc.ChangeOwn(ctx, en, ChangeInput{FirstName: "Anna", LastName: "Lee", Shirt: "m", Team: "Harbour Harriers"}); err != nil {
			t.Fatal(err)
		}
		reg, err := f.a.store.RegistrationByHold(ctx, en.Hold.ID)
		if err != nil || reg.FirstName != "Anna" || reg.LastName != "Lee" || reg.Shirt != "M" || reg.TeamName != "Harbour Harriers" {
			t.Errorf("after the change: %+v, %v", reg, err)
		}
		if hits, _ := f.a.store.Entrants(ctx, f.event().ID, "lee", 0, 10); len(hits) != 1 {
			t.Errorf("searching the new name: %d; want 1", len(hits))
		}
		// No team: the team nobody is in any more goes.
		if err := f.a.svc.ChangeOwn(ctx, en, ChangeInput{FirstName: "Anna", LastName: "Lee", Shirt: "M"}); err != nil {
			t.Fatal(err)
		}
		if teams, _ := f.a.store.Teams(ctx, f.race.ID, 10); len(teams) != 0 {
			t.Errorf("teams after the last runner left: %+v", teams)
		}
		if ns, _ := f.a.store.Notices(ctx, u.ID); len(ns) != 0 {
			t.Errorf("the runner was told of their own change: %+v", ns)
		}
		// After the cutoff: refused, saying until when.
		f.clock.Add(61 * time.Minute)
		err = f.a.svc.ChangeOwn(ctx, en, ChangeInput{FirstName: "Anne", LastName: "Lee", Shirt: "S"})
		if e := errs.As(err); err == nil || e.Kind != errs.Conflict || !strings.Contains(e.Message, "until Monday 1 March 2027, 14:00") {
			t.Errorf("a change after the cutoff: %v", err)
		}
		if reg, _ := f.a.store.RegistrationByHold(ctx, en.Hold.ID); reg.FirstName != "Anna" || reg.Shirt != "M" {
			t.Errorf("a change after the cutoff wrote: %+v", reg)
		}
		// Without a cutoff: until the event starts.
		f.setPolicy(PolicyInput{Refund: "none"})
		en, _ = f.entry(ctx, u, en.Hold)
		if o, _ := f.a.svc.Own(ctx, en); !o.CanEdit() || !o.EditBy.Equal(f.event().StartsAt) {
			t.Errorf("without a cutoff: editable %v until %v; want until the start %v", o.CanEdit(), o.EditBy, f.event().StartsAt)
		}
	}, sets()...)
}

// A runner's cancellation refunds what the rule gives, exactly, until its
// date, and nothing after; the place is free at once and the runner is
// told what is refunded.
func TestCancelOwnRefundRules(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 5050)
		q := jobs.New(d, jobs.Options{Now: f.clock.Now})
		q.Handle(refundKind, f.a.svc.refund)
		f.a.svc.jobs = q
		ctx := context.Background()
		for _, c := range []struct {
			name   string
			policy PolicyInput
			later  time.Duration // the clock moves on before the cancellation
			refund int64
			says   string
		}{
			{"none", PolicyInput{Refund: "none"}, 0, 0, "no refund for a cancellation"},
			{"full", PolicyInput{Refund: "full"}, 0, 5050, "50.50 EUR (all you paid) is refunded"},
			{"half", PolicyInput{Refund: "partial", Percent: "50"}, 0, 2525, "25.25 EUR (50 % of 50.50 EUR) is refunded"},
			{"a third", PolicyInput{Refund: "partial", Percent: "33"}, 0, 1667, "16.67 EUR (33 % of 50.50 EUR)"}, // 16.665 -> 16.67
			{"after the date", PolicyInput{Refund: "full", UntilDate: "2027-03-05", UntilTime: "00:00"}, 5 * 24 * time.Hour, 0,
				"refunded cancellations until 5 March 2027, 00:00"},
		} {
			f.setPolicy(c.policy)
			u, en := f.registered(ctx)
			f.clock.Add(c.later)
			if en, _ = f.entry(ctx, u, en.Hold); en == nil {
				t.Fatal("entry gone")
			}
			o, err := f.a.svc.Own(ctx, en)
			if err != nil || o.Refund != c.refund || !o.CanCancel() {
				t.Fatalf("%s: preview %+v, %v; want a refund of %d", c.name, o, err, c.refund)
			}
			taken, _, _, _ := f.counts()
			// A page shown with another refund is asked again.
			if _, err := f.a.svc.CancelOwn(ctx, en, "999999"); err != errRefundChanged {
				t.Errorf("%s: a stale refund: %v; want it asked again", c.name, err)
			}
			got, err := f.a.svc.CancelOwn(ctx, en, itoa(int(c.refund)))
			if err != nil || got.Status != "cancelled" {
				t.Fatalf("%s: cancel: %+v, %v", c.name, got, err)
			}
			if after, _, _, _ := f.counts(); after != taken-1 {
				t.Errorf("%s: places taken %d after the cancellation; want %d", c.name, after, taken-1)
			}
			for {
				ran, err := q.RunOne(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if !ran {
					break
				}
			}
			var refunded int64
			if err := db.Scan(d.QueryRow(ctx, `SELECT refunded FROM race_registrations WHERE hold_id = ?`, en.Hold.ID), &refunded); err != nil {
				t.Fatal(err)
			}
			if refunded != c.refund {
				t.Errorf("%s: refunded %d; want %d", c.name, refunded, c.refund)
			}
			ns, _ := f.a.store.Notices(ctx, u.ID)
			if len(ns) == 0 || !strings.Contains(ns[len(ns)-1].Body, c.says) || !strings.HasPrefix(ns[len(ns)-1].Subject, "Registration cancelled") {
				t.Errorf("%s: notices %+v; want the cancellation saying %q", c.name, ns, c.says)
			}
			if _, err := f.a.svc.CancelOwn(ctx, en, ""); errs.KindOf(err) != errs.Conflict {
				t.Errorf("%s: cancelled twice: %v; want a conflict", c.name, err)
			}
			f.clock.Add(-c.later)
		}
		// Once the event has started: no cancellation.
		u, en := f.registered(ctx)
		f.clock.Add(f.event().StartsAt.Sub(f.clock.Now()))
		en, _ = f.entry(ctx, u, en.Hold)
		if _, err := f.a.svc.CancelOwn(ctx, en, ""); err != errStarted {
			t.Errorf("cancelling at the start: %v; want refused", err)
		}
	}, sets()...)
}

// A director's edit changes the registrant's details and tells them what
// changed; an edit that changes nothing tells nobody; another race's
// registration is not found.
func TestDirectorEditTellsTheRunner(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		ctx := context.Background()
		u, en := f.registered(ctx)
		if err := f.a.svc.SetExtras(ctx, f.director(), ExtrasInput{Shirts: true}); err != nil {
			t.Fatal(err)
		}
		reg, _ := f.a.store.RegistrationByHold(ctx, en.Hold.ID)
		err := f.a.svc.EditRegistrant(ctx, f.director(), reg.ID, ChangeInput{FirstName: "Ann", LastName: "Smith", Shirt: "L"})
		if err != nil {
			t.Fatal(err)
		}
		ns, _ := f.a.store.Notices(ctx, u.ID)
		if len(ns) != 1 || ns[0].Subject != "Your details changed: Spring 10K · 10K" ||
			!strings.Contains(ns[0].Body, "Your name is now Ann Smith (it was Ann "+u.Username+").") ||
			!strings.Contains(ns[0].Body, "Your T-shirt size is now L (it was none).") {
			t.Errorf("notices: %+v", ns)
		}
		if err := f.a.svc.EditRegistrant(ctx, f.director(), reg.ID, ChangeInput{FirstName: "Ann", LastName: "Smith", Shirt: "L"}); err != nil {
			t.Fatal(err)
		}
		if ns, _ := f.a.store.Notices(ctx, u.ID); len(ns) != 1 {
			t.Errorf("an edit that changed nothing told the runner: %d notices", len(ns))
		}
		err = f.a.svc.EditRegistrant(ctx, f.director(), reg.ID, ChangeInput{FirstName: "Ann", LastName: "Smith", Shirt: ""})
		if errs.FieldsOf(err)["shirt"] == "" {
			t.Errorf("an edit without a size: %v; want refused at shirt", err)
		}
		if err := f.a.svc.EditRegistrant(ctx, f.otherRace(), reg.ID, ChangeInput{FirstName: "X", LastName: "Y"}); errs.KindOf(err) != errs.NotFound {
			t.Errorf("another race's director: %v; want not found", err)
		}
	}, sets()...)
}

// A closed event takes no new holds, waiting-list joins or lottery
// entries, through the service and in the claim's SQL; reopened, it does.
func TestClosedEventRefusesRegistration(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 1, 3000)
		ctx := context.Background()
		ev := f.event().ID
		if err := f.a.svc.CloseEvent(ctx, f.director(), ev, false); err != nil {
			t.Fatal(err)
		}
		r, _ := f.a.svc.Race(ctx, f.race.Slug)
		e, _ := r.Event(ev)
		if e.Phase(f.clock.Now()) != Closed {
			t.Fatalf("phase of a closed event: %v", e.Phase(f.clock.Now()))
		}
		u := f.user()
		if _, err := f.a.svc.Start(ctx, u, r, ev); err != errClosed {
			t.Errorf("a hold in a closed event: %v; want refused as closed", err)
		}
		// The claim itself refuses, whatever a stale page thought.
		var got bool
		err := d.WithTx(ctx, func(tx *db.Tx) error {
			var err error
			got, err = f.a.store.Claim(ctx, tx, &Hold{ID: "01234567890123456789012345", EventID: ev, RaceID: r.ID, UserID: u.ID,
				ExpiresAt: f.clock.Now().Add(time.Hour)}, f.clock.Now())
			return err
		})
		if err != nil || got {
			t.Errorf("the claim in a closed event: %v, %v; want no place", got, err)
		}
		if err := f.a.svc.waitlist.Join(ctx, u, &r.Race, ev); errs.KindOf(err) != errs.Conflict || !strings.Contains(errs.As(err).Message, "closed") {
			t.Errorf("joining a closed event's list: %v", err)
		}
		if err := f.a.svc.CloseEvent(ctx, f.director(), ev, true); err != nil {
			t.Fatal(err)
		}
		r, _ = f.a.svc.Race(ctx, f.race.Slug)
		if _, err := f.a.svc.Start(ctx, u, r, ev); err != nil {
			t.Errorf("a hold after reopening: %v", err)
		}
		if err := f.a.svc.CloseEvent(ctx, f.director(), 1<<40, false); errs.KindOf(err) != errs.NotFound {
			t.Errorf("closing no such event: %v", err)
		}
	}, sets()...)
}
