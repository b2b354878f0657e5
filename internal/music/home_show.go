package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/web"
)

// homeShow is music's front page: a signed-in user's discovery (their
// friends' posts and their own, with the share form); a visitor's is
// everyone's public posts (everyoneShow's page, cached).
func (a *App) homeShow(w http.ResponseWriter, r *http.Request) {
	u := auth.UserFrom(r.Context())
	if u == nil {
		a.everyoneShow(w, r)
		return
	}
	p, err := a.discoveryView(r, u, nil)
	a.render(w, r, p, err)
}

// discoveryView is u's discovery page, with the share form (f: as typed,
// with its errors; nil: empty).
func (a *App) discoveryView(r *http.Request, u *auth.User, f *shareForm) (*page, error) {
	before, err := web.QueryID(r, "before")
	if err != nil {
		return nil, err
	}
	feed, err := a.svc.Discovery(r.Context(), u, before)
	if err != nil {
		return nil, err
	}
	p := feedPage(r, u, "discovery", "Friends' music", feed)
	if f == nil {
		f = &shareForm{}
	}
	p.Share = f
	return p, nil
}
