package race

import (
	"context"
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// directing is the middleware of the director's routes (/race/r/{slug}/admin...,
// in a signed-in group): it loads the race of {slug} once and checks that
// the user directs it (Service.Directed: not found for a draft they do not
// direct, forbidden for a published one), and hands the handler a
// *Directing in the request's context (directedOf). A handler there cannot
// forget the check.
func (a *App) directing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := a.svc.Directed(r.Context(), auth.UserFrom(r.Context()), r.PathValue("slug"))
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		ctx := context.WithValue(r.Context(), directingKey{}, d)
		// The sub-packages' handlers (results) read the same check as
		// races.DirectingOf.
		ctx = races.WithDirecting(ctx, &races.Directing{User: d.User, Race: &d.Race.Race})
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

type directingKey struct{}

// directedOf is the race and director that the directing middleware
// loaded for r.
func directedOf(r *http.Request) *Directing {
	d, _ := r.Context().Value(directingKey{}).(*Directing)
	return d
}

// directed is directedOf for the handlers that still check its result
// (admin_race.go, logo.go): behind the directing middleware it is never
// nil. Outside it, it checks as the middleware does, answering a visitor
// or a non-director itself (then nil).
func (a *App) directed(w http.ResponseWriter, r *http.Request) *Directing {
	if d := directedOf(r); d != nil {
		return d
	}
	u, ok := auth.RequireUser(w, r)
	if !ok {
		return nil
	}
	d, err := a.svc.Directed(r.Context(), u, r.PathValue("slug"))
	if err != nil {
		a.Site.Error(w, r, err)
		return nil
	}
	return d
}
