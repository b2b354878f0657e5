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

// DirectedEvent is the Directing of r and its event {eid}; not found for
// an event that is not the race's.
func DirectedEvent(r *http.Request) (*Directing, *Event, error) {
	d := DirectingOf(r)
	if d == nil {
		return nil, nil, ErrNoRace
	}
	id, err := ParseID(r.PathValue("eid"))
	if err != nil {
		return nil, nil, err
	}
	e, ok := d.Race.Event(id)
	if !ok {
		return nil, nil, errs.ErrNotFound
	}
	return d, e, nil
}
