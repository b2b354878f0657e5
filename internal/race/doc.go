// Package race is race registration that takes an opening rush: directors
// publish races with capped events; runners register through a wizard of
// one form a page, on a place held for them, pay once, and get a bib.
//
// Routes (all under /race/):
//
//	GET  /race/                                    published races
//	GET  /race/mine                                your registrations and the races you direct
//	GET  /race/new, POST /race/races               create a race (the wizard's first step)
//	GET  /race/r/{slug}                            the race page (cached; the hot lane serves visitors)
//	GET  /race/r/{slug}/register?event=ID          account (signed out) or event (signed in)
//	POST /race/r/{slug}/account                    sign in or sign up, then the event page
//	POST /race/r/{slug}/register                   hold a place -> the entry's pages
//	GET|POST /race/r/{slug}/entry/{hold}/details, /team, /donation, /store, /waiver; GET .../review; GET|POST .../pay
//	GET  /race/r/{slug}/entry/{hold}/wait, /done   the waiting page, the confirmation
//	POST /race/r/{slug}/entry/{hold}/leave         give the place up
//	GET|POST /race/r/{slug}/entry/{hold}/change, /cancel  the runner's change of details, cancellation (changes.go)
//	GET|POST /race/r/{slug}/early                 hold a place before an event opens, with an early-access code
//	POST /race/r/{slug}/entry/{hold}/code          a discount code on the entry (remove=1: off)
//	GET  /race/r/{slug}/events/{eid}/sold-out      sold out: the waiting list (package waitlist), and an invitation from it
//	POST /race/r/{slug}/events/{eid}/waitlist      join it (leave=1: leave); POST .../invitation: take the kept place
//	GET  /race/r/{slug}/admin[/basics|/events|/extras|/text]  the directors' wizard and the race's home
//	POST .../admin/basics, /events, /events/{eid}, /events/{eid}/delete, /extras, /items, /items/{iid},
//	     /items/{iid}/delete, /text, /publish, /directors
//	GET|POST .../admin/codes, POST .../admin/codes/{cid}/delete   discount and early-access codes
//	GET|POST .../admin/rehearsals                   the load rehearsal console (package rehearsals)
//	GET  .../admin/rehearsals/{rid}[/progress]      one rehearsal: live gauges (JSON), then its report
//	POST .../admin/rehearsals/{rid}/stop, /comment
//	GET  .../admin/events/{eid}/entrants[.csv]     registrants: search, export
//	POST .../admin/registrations/{rid}/cancel      cancel (frees the place) and refund (a job)
//	GET|POST .../admin/registrations/{rid}/edit    a registrant's details; the runner is told
//	POST .../admin/policy                          the rule of runners' changes and refunds
//	GET|POST .../admin/events/{eid}/close, POST .../reopen   an event's registration closed, opened again
//	GET  .../admin/events/{eid}/checkin?q=         race day: the bib pickup list (a phone's)
//	GET|POST .../admin/events/{eid}/message         write to its registrants: the form, the page that asks first, the sending
//	POST .../admin/registrations/{rid}/checkin     bib picked up (undo=1: not)
//	GET  /race/r/{slug}/results[/{eid}]?q=&page=&after=   results (package results), 10 a page; search by name or bib (cached)
//	GET  /race/r/{slug}/results/{eid}/names?q=     the search box's suggestions (JSON)
//	GET|POST .../admin/events/{eid}/results        import a results CSV; POST .../publish, /unpublish
//
// Sub-packages: races (the race day and its events, the leaf every part
// reads), results (import, publishing, the results pages and their
// search), waitlist (a full event's waiting list and its lottery: the
// sold-out page, the invitations and the draw, run by the writer's
// sweep). race mounts them and gives them what they need of it as
// functions (subapps.go); none imports race.
//
// Layers: handler -> Service -> Store. The Service decides (who directs a
// race, who owns an entry: anyone else's is not found) and runs the
// registration pipeline (service_register.go); the Store is SQL only.
//
// Tables: race_races (version: the cache stamp; next_bib; edit_until,
// refund_percent, refund_until, shirts: changes.go), race_directors,
// race_events (taken: confirmed and held places, a checkout.Stock, the one counter a claim
// changes; CHECK taken <= cap; closed_at: closed by a director), race_holds (a runner's place and answers
// while in the wizard; status a checkout.State: open (held), paying, paid, done, released),
// race_registrations (hold_id unique: written once), race_results (an
// event's finishers, replaced whole by an import; pos is the list's order;
// name search through race_results_fts on SQLite, a GIN index on
// PostgreSQL), and the extras (extras.go): race_teams, race_items (taken:
// units sold and held; CHECK taken <= stock) and race_hold_items (a hold's
// store lines, claimed with it and given back when it is released);
// race_codes (codes.go: uses claimed like places), race_waitlist
// (package waitlist; race_events.waiting keeps others' claims off the places
// that come back while anyone waits), race_notices (what each runner was
// told, notices.go) and race_messages (a directors' message to an event's
// registrants, stored once: service_message.go).
package race
