package race

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/race/waitlist"
)

// A lottery: runners enter until the draw and nobody claims a place
// meanwhile; at the draw the places go in the drawn order (here the
// reverse of the entries', so the last to enter win), the rest wait in
// that order for places that come back.
func TestLotteryDrawsInTheDrawnOrder(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const places, entrants = 3, 8
		f := newFixture(t, d, 10, 2000)
		ctx := context.Background()
		dir, err := f.a.svc.Directed(ctx, &auth.User{ID: f.race.OwnerID}, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		in := EventInput{Name: "Marathon", StartTime: "08:00", OpensDate: "2027-03-01", OpensTime: "12:00",
			ClosesDate: "2027-04-09", ClosesTime: "20:00", Price: "80", Cap: "3", Lottery: true, DrawDate: "2027-04-10", DrawTime: "09:00"}
		if err := f.a.svc.AddEvent(ctx, dir, in); fieldMsg(err, "draw") == "" {
			t.Errorf("a draw after the close: %v; want a field error", err)
		}
		in.DrawDate, in.DrawTime = "2027-03-02", "12:00"
		if err := f.a.svc.AddEvent(ctx, dir, in); err != nil {
			t.Fatal(err)
		}
		if f.race, err = f.a.svc.Race(ctx, f.race.Slug); err != nil {
			t.Fatal(err)
		}
		var lot *Event
		for i := range f.race.Events {
			if f.race.Events[i].Lottery {
				lot = &f.race.Events[i]
			}
		}
		if lot == nil || lot.Phase(f.clock.Now()) != Entering {
			t.Fatalf("lottery event %+v not taking entries", lot)
		}
		users := make([]*auth.User, entrants)
		for i := range users {
			users[i] = f.user()
			if err := f.a.svc.waitlist.Join(ctx, users[i], &f.race.Race, lot.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.a.svc.waitlist.Join(ctx, users[0], &f.race.Race, lot.ID); err != nil { // twice: once
			t.Fatal(err)
		}
		if _, err := f.a.svc.Start(ctx, f.user(), f.race, lot.ID); !errors.Is(err, ErrSoldOut) {
			t.Errorf("a claim before the draw: %v; want refused", err)
		}
		// Not yet due: nothing drawn.
		if n, err := f.a.svc.waitlist.Draw(ctx, nil); err != nil || n != 0 {
			t.Fatalf("a draw before its time: %d, %v", n, err)
		}
		f.clock.Add(25 * time.Hour)
		reverse := func(n int, swap func(i, j int)) {
			for i := 0; i < n/2; i++ {
				swap(i, n-1-i)
			}
		}
		if n, err := f.a.svc.waitlist.Draw(ctx, reverse); err != nil || n != 1 {
			t.Fatalf("the draw: %d, %v; want 1 event", n, err)
		}
		if n, err := f.a.svc.waitlist.Draw(ctx, reverse); err != nil || n != 0 {
			t.Fatalf("a second draw: %d, %v; want none", n, err)
		}
		if _, err := f.a.svc.waitlist.Invite(ctx); err != nil {
			t.Fatal(err)
		}
		var invited, waiting []int
		for i, u := range users {
			we, err := f.a.svc.waitlist.Entry(ctx, u, lot.ID)
			if err != nil || we == nil {
				t.Fatalf("entrant %d: %+v, %v", i, we, err)
			}
			switch we.Status {
			case "invited":
				invited = append(invited, i)
			case "waiting":
				waiting = append(waiting, i)
				if want := entrants - 1 - places - i; we.Ahead != want {
					t.Errorf("entrant %d has %d ahead; want %d (the drawn order)", i, we.Ahead, want)
				}
			}
		}
		if !slices.Equal(invited, []int{5, 6, 7}) || len(waiting) != entrants-places {
			t.Errorf("invited %v, waiting %v; want the last three invited", invited, waiting)
		}
		e, err := f.a.store.Event(ctx, lot.ID)
		if err != nil || e.Taken != places || e.Waiting != entrants-places {
			t.Errorf("after the draw: taken %d waiting %d (%v); want %d, %d", e.Taken, e.Waiting, err, places, entrants-places)
		}
		// A runner joining after the draw waits behind every entrant.
		late := f.user()
		fresh := *f.race
		fresh.Events = []Event{e}
		if err := f.a.svc.waitlist.Join(ctx, late, &fresh.Race, lot.ID); err != nil {
			t.Fatal(err)
		}
		if we, err := f.a.svc.waitlist.Entry(ctx, late, lot.ID); err != nil || we == nil || we.Ahead != entrants-places {
			t.Errorf("a runner joining after the draw: %+v, %v; want %d ahead", we, err, entrants-places)
		}
		if _, err := f.a.svc.StartInvited(ctx, users[7], f.race, lot.ID); err != nil {
			t.Errorf("a winner takes her place: %v", err)
		}
		if _, err := f.a.svc.StartInvited(ctx, users[0], f.race, lot.ID); !errors.Is(err, waitlist.ErrNoInvitation) {
			t.Errorf("an entrant not drawn takes a place: %v", err)
		}
	}, sets()...)
}

// An entry made after the draw time but before the sweep has drawn is not
// in the draw: it waits behind every drawn entrant, whatever the order.
func TestLotteryEntryAfterTheDrawTimeIsNotDrawn(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 2000)
		ctx := context.Background()
		dir, err := f.a.svc.Directed(ctx, &auth.User{ID: f.race.OwnerID}, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.AddEvent(ctx, dir, EventInput{Name: "Marathon", StartTime: "08:00", OpensDate: "2027-03-01", OpensTime: "12:00",
			ClosesDate: "2027-04-09", ClosesTime: "20:00", Price: "80", Cap: "1", Lottery: true, DrawDate: "2027-03-02", DrawTime: "12:00"}); err != nil {
			t.Fatal(err)
		}
		race, err := f.a.svc.Race(ctx, f.race.Slug)
		if err != nil {
			t.Fatal(err)
		}
		var lot Event
		for _, e := range race.Events {
			if e.Lottery {
				lot = e
			}
		}
		ann, bo, tardy := f.user(), f.user(), f.user()
		for _, u := range []*auth.User{ann, bo} {
			if err := f.a.svc.waitlist.Join(ctx, u, &race.Race, lot.ID); err != nil {
				t.Fatal(err)
			}
		}
		f.clock.Add(25 * time.Hour) // past the draw time; not drawn yet
		if err := f.a.svc.waitlist.Join(ctx, tardy, &race.Race, lot.ID); err != nil {
			t.Fatal(err)
		}
		// The order that would put the tardy runner first, were she drawn.
		reverse := func(n int, swap func(i, j int)) {
			for i := 0; i < n/2; i++ {
				swap(i, n-1-i)
			}
		}
		if n, err := f.a.svc.waitlist.Draw(ctx, reverse); err != nil || n != 1 {
			t.Fatalf("the draw: %d, %v", n, err)
		}
		// Bo, drawn first by the reverse order, is invited to the one place
		// by the draw; ann waits next, and the tardy runner behind her.
		if we, err := f.a.svc.waitlist.Entry(ctx, tardy, lot.ID); err != nil || we == nil || we.Status != "waiting" || we.Ahead != 1 {
			t.Errorf("the entry after the draw time: %+v, %v; want waiting, 1 ahead", we, err)
		}
		if we, err := f.a.svc.waitlist.Entry(ctx, ann, lot.ID); err != nil || we == nil || we.Status != "waiting" || we.Ahead != 0 {
			t.Errorf("ann, drawn second: %+v, %v; want waiting, next in line", we, err)
		}
		if we, err := f.a.svc.waitlist.Entry(ctx, bo, lot.ID); err != nil || we == nil || we.Status != "invited" {
			t.Errorf("bo, drawn first by the reverse order: %+v, %v; want invited by the draw", we, err)
		}
		// Each is told, in the draw's transaction, what the draw made of
		// them (the mails: TestDrawAndInvitationsTellTheRunners).
		for _, c := range []struct {
			who  *auth.User
			want []string
		}{
			{bo, []string{"You were drawn: Spring 10K · Marathon", "kept for you until Wednesday 3 March 2027, 14:00 CET (Europe/Berlin)", "Take your place"}},
			{ann, []string{"Not drawn: Spring 10K · Marathon", "you were not drawn", "you are next in line."}},
			{tardy, []string{"On the list after the draw: Spring 10K · Marathon", "entered by Tuesday 2 March 2027, 12:00 CET (Europe/Berlin)", "1 runner before you."}},
		} {
			ns, err := f.a.store.Notices(ctx, c.who.ID)
			if err != nil || len(ns) != 1 {
				t.Fatalf("%s's notices: %+v, %v; want one", c.who.Username, ns, err)
			}
			got := ns[0].Subject + "\n" + ns[0].Body + "\n" + ns[0].LinkText + " " + ns[0].Link
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s was told %q; want it to say %q", c.who.Username, got, w)
				}
			}
		}
	}, sets()...)
}
