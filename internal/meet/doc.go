// Package meet is the group scheduling app: an organizer creates a poll and
// shares its link; participants add themselves by name (no account) and paint
// when they are free at three preference tiers; everyone sees the best times.
//
// Routes (all under /meet/):
//
//	GET  /meet/                                  your polls (remembered by this browser) and "New poll"
//	GET  /meet/polls/new, POST /meet/polls       create
//	GET  /meet/polls/{id}                        poll page: optimal times, heat map, participants, comments (cached)
//	GET  /meet/polls/{id}/export.csv             answers as CSV
//	GET  /meet/polls/{id}/event.ics              the chosen time, once closed
//	GET  /meet/polls/{id}/stream                 the poll page's live events (Server-Sent Events, internal/live)
//	POST /meet/polls/{id}/participants           add yourself -> your private edit link
//	GET  /meet/polls/{id}/p/{pid}                a participant's availability and comments
//	GET  /meet/polls/{id}/p/{pid}/{token}        your private edit page: the paintable grid
//	POST .../{token}/timeframes, .../timeframes/{tf}/delete, .../availability (JSON), .../comments, .../busy (.ics), .../delete
//	GET  /meet/polls/{id}/admin/{token}          the organizer's page: edit, close, duplicate, delete
//	POST .../admin/{token}, .../close, .../reopen, .../duplicate, .../delete, .../participants/{pid}/delete
//
// Layers: handler -> Service -> Store.
//
//   - Handlers (poll_*.go, admin.go, participant*.go, live.go) parse the
//     request into typed input and credentials (AdminKey from an admin link,
//     OwnKey from a participant's private link), call one Service method, and
//     render the page or redirect; an error goes to web.Site.Error (a page,
//     or problem details for JSON), or re-renders the form when it carries
//     field messages. They make no decision of their own.
//   - The Service (service*.go) owns every decision: the organizer's admin
//     token and a participant's private token (a wrong one is NotFound, so a
//     poll's existence is not revealed), the lock of a closed or
//     past-deadline poll (ErrLocked), validation (PollInput, CloseInput,
//     TimeframeInput, names, comments, the painted grid, calendars: Invalid
//     with field messages), the write, and, after the commit, telling the
//     poll's open pages (App.committed: the cache stamp and the live hub).
//   - The Store (store*.go) is SQL only. It refuses a change to a locked
//     poll again inside the write's transaction, so that a poll closed
//     between the Service's check and the commit still takes no answers.
//
// Private data comes only from Service methods that check the credentials
// first: the participants' link secrets (OrganizerPage) and a participant's
// busy times (OwnPage). The public poll page (poll_show.go, cached under the
// poll's version) still builds its view from the Store directly; demo.go
// seeds through the Store.
//
// Tables: meet_polls, meet_participants, meet_timeframes, meet_comments,
// meet_busy (migrations/). Every change to a poll or anything in it bumps
// meet_polls.version in the same transaction; the poll page is cached under
// that version (key-based expiry) and answers conditional GETs. After the
// commit, the change is published on the bus (meet.events) to the poll's
// open pages, which fetch the cached page again and swap in what changed.
package meet
