package races

import (
	"context"
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Directing is a race as race loaded it for one of its directors: the
// directors' methods take it, so that a request loads the race and checks
// its director once.
type Directing struct {
	User *auth.User
	Race *Race
}

type directingKey struct{}

// WithDirecting is ctx carrying d: what race's directing middleware gives
// the handlers of the admin routes, once it has checked the director.
func WithDirecting(ctx context.Context, d *Directing) context.Context {
	return context.WithValue(ctx, directingKey{}, d)
}

// DirectingOf is the race and director the directing middleware loaded for
// r; nil outside the admin routes (a route mounted there never sees nil).
func DirectingOf(r *http.Request) *Directing {
	d, _ := r.Context().Value(directingKey{}).(*Directing)
	return d
}

type eventKey struct{}

// DirectedEvent is the middleware of a director's routes under
// /events/{eid}, inside the admin group: it finds event {eid} of the race
// the directing middleware loaded, answering fail with not found when it
// is not the race's, and hands the handler both (EventOf). A handler there
// neither checks the director nor looks the event up.
func DirectedEvent(fail func(http.ResponseWriter, *http.Request, error)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			d := DirectingOf(r)
			if d == nil {
				fail(w, r, ErrNoRace)
				return
			}
			id, err := ParseID(r.PathValue("eid"))
			if err != nil {
				fail(w, r, err)
				return
			}
			e, ok := d.Race.Event(id)
			if !ok {
				fail(w, r, errs.ErrNotFound)
				return
			}
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), eventKey{}, e)))
		})
	}
}

// EventOf is the race, director and event DirectedEvent loaded for r.
func EventOf(r *http.Request) (*Directing, *Event) {
	e, _ := r.Context().Value(eventKey{}).(*Event)
	return DirectingOf(r), e
}
