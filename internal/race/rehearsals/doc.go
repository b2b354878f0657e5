// Package rehearsals is a director's load rehearsals: dry runs of a
// race's opening rush, started from the race's admin pages (the console),
// with simulated runners going through race's whole registration wizard,
// live gauges while it runs and a stored report at the end.
//
// Safety first: a rehearsal runs against a copy of the race made for it
// (its events open now, the same places, prices and extras; never listed;
// a banner on its pages), never the race itself, so no real runner meets a
// place taken by a simulated one; its runners are accounts made for it with
// addresses in the reserved .invalid domain (their mail is dropped); it
// pays only through a gateway that moves no money; and each of its
// registrations is cancelled and refunded after the director's delay, by
// the sweep of whichever instance is up. One rehearsal runs at a time on a
// site, from the instance that started it, against itself over loopback;
// it writes its gauges to the database every second, so any instance
// shows them, and the report when it ends. An hour after the end, with
// everything refunded, the copy and the runners' accounts go.
//
// Inside it, handlers (admin.go) call the service, which decides; the
// store is SQL only. The console is mounted in race's admin group, whose
// middleware has checked the director once (races.DirectingOf).
//
// It knows race through package races (the race day and its events) and
// the functions of Deps.Race (copying a race, the wizard's rush as a load
// scenario, cancelling registrations); race mounts it (New, App.Routes)
// and calls its part of the sweep (App.Sweep), never the other way round.
// Its table, race_rehearsals, is race's (in race's migrations).
package rehearsals
