package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/web"
)

// personShow is a person's page: their profile and the posts the viewer
// may see (a stranger the public ones; a friend, and the person, all).
func (a *App) personShow(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	u := auth.UserFrom(r.Context())
	build := func() (*page, error) {
		before, err := web.QueryID(r, "before")
		if err != nil {
			return nil, err
		}
		pe, err := a.svc.Person(r.Context(), u, name, before)
		if err != nil {
			return nil, err
		}
		p := feedPage(r, u, "profile", pe.Name()+" (@"+pe.Username+")", pe.Feed)
		p.Person = pe.Profile
		return p, nil
	}
	if key := personKey(name); visitor(r) && key != "" {
		a.serveVisitor(w, r, key, build)
		return
	}
	p, err := build()
	a.render(w, r, p, err)
}
