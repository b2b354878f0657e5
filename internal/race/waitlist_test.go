package race

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/race/waitlist"
)

// The waiting list: a place that comes back goes to the runners on the
// list in the order they joined, kept for each until the invitation runs
// out, and to nobody else while anyone waits; an invitation not taken in
// time goes, and its place with it.
func TestWaitingListInvitesInOrder(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 2, 2000)
		ctx := context.Background()
		ann, bo, cy, dee, eve := f.user(), f.user(), f.user(), f.user(), f.user()
		event := func() *Event {
			e, err := f.a.store.Event(ctx, f.event().ID)
			if err != nil {
				t.Fatal(err)
			}
			return &e
		}
		race := func() *Race { // as a request sees it, counts fresh
			r := *f.race
			r.Events = []Event{*event()}
			return &r
		}
		if err := f.a.svc.waitlist.Join(ctx, cy, &race().Race, f.event().ID); err == nil {
			t.Fatal("joined the waiting list of an event with places")
		}
		ha, err := f.a.svc.Start(ctx, ann, race(), f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.svc.Start(ctx, bo, race(), f.event().ID); err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.waitlist.Join(ctx, bo, &race().Race, f.event().ID); err == nil {
			t.Error("a runner holding a place joined the waiting list")
		}
		if err := f.a.svc.waitlist.Join(ctx, cy, &race().Race, f.event().ID); err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.waitlist.Join(ctx, dee, &race().Race, f.event().ID); err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.waitlist.Join(ctx, cy, &race().Race, f.event().ID); err != nil { // twice: once
			t.Fatal(err)
		}
		if e := event(); e.Waiting != 2 || e.Phase(f.clock.Now()) != SoldOut {
			t.Fatalf("waiting %d phase %v; want 2, sold out", e.Waiting, e.Phase(f.clock.Now()))
		}
		if we, err := f.a.svc.waitlist.Entry(ctx, dee, f.event().ID); err != nil || we == nil || we.Status != "waiting" || we.Ahead != 1 {
			t.Fatalf("dee's entry %+v, %v; want waiting with 1 ahead", we, err)
		}
		// Ann leaves: her place is kept from eve for the list.
		en, _ := f.entry(ctx, ann, ha)
		if err := f.a.svc.Leave(ctx, en); err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.svc.Start(ctx, eve, race(), f.event().ID); !errors.Is(err, ErrSoldOut) {
			t.Fatalf("eve while runners wait: %v; want sold out", err)
		}
		f.a.svc.writer.sweep()
		if e := event(); e.Taken != 2 || e.Waiting != 1 {
			t.Fatalf("after inviting: taken %d waiting %d; want 2, 1", e.Taken, e.Waiting)
		}
		if _, err := f.a.svc.StartInvited(ctx, dee, race(), f.event().ID); !errors.Is(err, waitlist.ErrNoInvitation) {
			t.Errorf("dee, not invited yet, takes a place: %v", err)
		}
		we, err := f.a.svc.waitlist.Entry(ctx, cy, f.event().ID)
		if err != nil || we == nil || we.Status != "invited" || !we.ExpiresAt.Equal(f.clock.Now().Add(waitlist.DefaultInviteFor).Truncate(time.Millisecond)) {
			t.Fatalf("cy's entry %+v, %v; want invited for a day", we, err)
		}
		hc, err := f.a.svc.StartInvited(ctx, cy, race(), f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.fill(ctx, cy, hc); err != nil {
			t.Fatal(err)
		}
		if err := f.pay(ctx, cy, hc, pay.CardPaid); err != nil {
			t.Fatal(err)
		}
		f.drain()
		if e := event(); e.Taken != 2 || e.Confirmed != 1 {
			t.Fatalf("after cy registered: taken %d confirmed %d; want 2, 1", e.Taken, e.Confirmed)
		}
		// Bo's hold runs out: the place goes to dee, who lets her
		// invitation run out too; then the event is open to anyone.
		f.clock.Add(21 * time.Minute)
		f.a.svc.writer.sweep()
		if we, _ := f.a.svc.waitlist.Entry(ctx, dee, f.event().ID); we == nil || we.Status != "invited" {
			t.Fatalf("dee's entry after bo's hold ran out: %+v; want invited", we)
		}
		f.clock.Add(waitlist.DefaultInviteFor)
		f.a.svc.writer.sweep()
		if e := event(); e.Taken != 1 || e.Waiting != 0 || e.Phase(f.clock.Now()) != Open {
			t.Fatalf("after dee's invitation ran out: taken %d waiting %d; want 1, 0, open", e.Taken, e.Waiting)
		}
		if _, err := f.a.svc.StartInvited(ctx, dee, race(), f.event().ID); !errors.Is(err, waitlist.ErrNoInvitation) {
			t.Errorf("dee after her invitation ran out: %v; want none", err)
		}
		// Dee was told of both, each in the sweep that made it, newest
		// first; cy of her invitation alone.
		ns, err := f.a.store.Notices(ctx, dee.ID)
		if err != nil || len(ns) != 2 {
			t.Fatalf("dee's notices %+v, %v; want two", ns, err)
		}
		if n := ns[0]; n.Subject != "Invitation expired: Spring 10K · 10K" || !strings.Contains(n.Body, "ran out on Tuesday 2 March 2027, 13:21 CET (Europe/Berlin)") ||
			!strings.Contains(n.Body, "went to the next runner") {
			t.Errorf("dee's expiry notice: %+v", n)
		}
		if n := ns[1]; n.Subject != "A place for you: Spring 10K · 10K" || !strings.Contains(n.Body, "kept for you until Tuesday 2 March 2027, 13:21 CET (Europe/Berlin)") ||
			n.Link != soldOutURL(f.race.Slug, f.event().ID) || n.LinkText != "Take your place" {
			t.Errorf("dee's invitation notice: %+v", n)
		}
		if ns, err := f.a.store.Notices(ctx, cy.ID); err != nil || len(ns) != 1 || ns[0].Subject != "A place for you: Spring 10K · 10K" {
			t.Errorf("cy's notices %+v, %v; want her invitation", ns, err)
		}
		if _, err := f.a.svc.Start(ctx, eve, race(), f.event().ID); err != nil {
			t.Errorf("eve once nobody waits: %v", err)
		}
	}, sets()...)
}

// An invited runner who took a place of their own meanwhile (the list
// all invited, another place freed) goes on with that hold from the
// invitation's link, and the place the invitation kept goes back.
func TestInvitedWithAHoldOfTheirOwn(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 2, 2000)
		ctx := context.Background()
		ann, bo, cy := f.user(), f.user(), f.user()
		taken := func() int {
			t.Helper()
			e, err := f.a.store.Event(ctx, f.event().ID)
			if err != nil {
				t.Fatal(err)
			}
			return e.Taken
		}
		race := func() *Race {
			r := *f.race
			e, _ := f.a.store.Event(ctx, f.event().ID)
			r.Events = []Event{e}
			return &r
		}
		ha, err := f.a.svc.Start(ctx, ann, race(), f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.svc.Start(ctx, bo, race(), f.event().ID); err != nil {
			t.Fatal(err)
		}
		if err := f.a.svc.waitlist.Join(ctx, cy, &race().Race, f.event().ID); err != nil {
			t.Fatal(err)
		}
		en, _ := f.entry(ctx, ann, ha)
		if err := f.a.svc.Leave(ctx, en); err != nil {
			t.Fatal(err)
		}
		f.a.svc.writer.sweep() // cy invited: ann's place kept for her
		f.clock.Add(21 * time.Minute)
		f.a.svc.writer.sweep() // bo's hold ran out; nobody else waits
		if got := taken(); got != 1 {
			t.Fatalf("taken %d; want 1 (cy's invitation)", got)
		}
		own, err := f.a.svc.Start(ctx, cy, race(), f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := taken(); got != 2 {
			t.Fatalf("taken %d; want 2 (the invitation's and cy's hold)", got)
		}
		h, err := f.a.svc.StartInvited(ctx, cy, race(), f.event().ID)
		if err != nil || h == nil || h.ID != own.ID {
			t.Fatalf("the invitation's link: %+v, %v; want cy's own hold %s", h, err, own.ID)
		}
		if got := taken(); got != 1 {
			t.Errorf("taken %d; want 1: the invitation's place went back", got)
		}
		if we, _ := f.a.svc.waitlist.Entry(ctx, cy, f.event().ID); we != nil && we.Status == "invited" {
			t.Errorf("cy's invitation still keeps a place: %+v", we)
		}
	}, sets()...)
}
