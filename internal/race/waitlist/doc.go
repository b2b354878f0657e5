// Package waitlist is a full event's waiting list and its lottery. A
// runner who finds an event sold out joins its list; while anyone waits, a
// place that comes back (a hold released, a registration cancelled) is
// claimed by nobody else: the sweep invites the next runners in their
// order, keeping a place for each until the invitation runs out
// (DefaultInviteFor), and tells them (a notice and a mail). An invitation
// not used in time goes, its place to the next runner. A lottery event's
// entries are its list before the draw: at the draw time the sweep gives
// every entry a random rank (Service.Draw), invites the first entrants to
// the places, and the rest wait in the drawn order.
//
// Routes (under race's /race/):
//
//	GET  /race/r/{slug}/events/{eid}/sold-out   the list: join it, one's place in it, an invitation
//	GET  /race/r/{slug}/events/{eid}/lottery    the same page for a lottery event: enter, the draw
//	POST /race/r/{slug}/events/{eid}/waitlist   join (leave=1: leave, or give up an invitation's place)
//	POST /race/r/{slug}/events/{eid}/invitation take the kept place: race's registration goes on
//
// Inside it, handlers (pages.go) call the Service, which decides; the
// store is SQL only. It has no directors' pages: the directors see an
// event's list by its counts, on race's pages.
//
// It knows race through package races (the race day, its events and their
// places) and the few functions of Deps: the races as runners see them,
// where a runner stands in an event, the invitation taken through race's
// registration (Registration.Take) and the notices race keeps (Deps.Tell).
// race mounts it (New, App.Routes) and calls its Service in the sweep, in
// its registration (Accept, Leave) and when an account goes (Lock,
// LeaveAll); it never imports race. Its table, race_waitlist, and the
// columns of race_events it counts in (waiting; lottery, draw_at,
// drawn_at) are race's, in race's migrations.
package waitlist
