package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/web"
)

// everyoneShow is everyone's public posts, newest first; a visitor's first
// page is cached.
func (a *App) everyoneShow(w http.ResponseWriter, r *http.Request) {
	u := auth.UserFrom(r.Context())
	build := func() (*page, error) {
		before, err := web.QueryID(r, "before")
		if err != nil {
			return nil, err
		}
		f, err := a.svc.Everyone(r.Context(), u, before)
		if err != nil {
			return nil, err
		}
		p := feedPage(r, u, "everyone", "music", f)
		if p.Older != "" {
			p.Older = "/music/everyone?before=" + itoa(f.Next)
		}
		return p, nil
	}
	if visitor(r) {
		a.serveVisitor(w, r, "everyone", build)
		return
	}
	p, err := build()
	a.render(w, r, p, err)
}
