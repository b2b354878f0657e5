package meet

import (
	"net/http"
	"time"

	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/version"
)

// subject is the bus subject of meet's live events; every instance
// subscribes, so an answer given on one reaches the poll pages open on all.
const subject = "meet.events"

// pollEvent tells the streams of a poll that its page changed.
type pollEvent struct {
	Poll string `json:"poll"`
	// Kind is what changed: "answers" (someone joined, left, painted, or
	// commented) or "poll" (the organizer edited, closed, reopened or
	// deleted it).
	Kind string `json:"kind"`
}

func newHub(d Deps, versions version.Versions) (*live.Hub[pollEvent], error) {
	return live.New(d.Live, live.Options[pollEvent]{
		Bus: d.Bus, Subject: subject,
		// Some instance changed the poll: the version read is old.
		Heard: func(e *pollEvent) { versions.Heard(versionScope, e.Poll) },
		Key:   func(e *pollEvent) string { return e.Poll },
		// The page is refetched (it is cached), so the event carries nothing.
		Encode: func(e *pollEvent) live.Message {
			return live.Message{Type: e.Kind, Data: [][]byte{[]byte("{}")}}
		},
	})
}

// committed records a change of poll id committed at version v, with its
// deadline, and tells the poll's open pages (kind: see pollEvent).
func (a *App) committed(id string, v int64, deadline *time.Time, kind string) {
	a.raise(id, v, deadline)
	a.publish(id, kind)
}

func (a *App) publish(id, kind string) {
	if err := a.hub.Publish(&pollEvent{Poll: id, Kind: kind}); err != nil {
		a.Log.Warn("meet: publish", "poll", id, "err", err)
	}
}

// pollStream is the live stream of a poll page: an event each time the page
// changes, after the commit; the page's script refetches the page (a shared
// cached page) and swaps in what changed. Events carry no ids: a client that
// reconnects refetches once instead of catching up.
func (a *App) pollStream(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !validID(id) {
		a.Site.NotFound(w, r)
		return
	}
	// The poll's stamp: a map load, or a primary-key lookup (unknown poll).
	if _, _, err := a.stamp(r.Context(), id); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if err := a.hub.Serve(w, r, live.Stream[pollEvent]{Key: id}); err != nil {
		a.Site.Error(w, r, err)
	}
}

// Streams is the number of poll streams open on this instance.
func (a *App) Streams() int { return a.hub.Streams() }
