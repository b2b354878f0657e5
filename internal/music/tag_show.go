package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/web"
)

// tagShow is the posts tagged with the path's tag that the viewer may see:
// a visitor or a stranger the public ones, a friend also the friends-only
// ones of their friends.
func (a *App) tagShow(w http.ResponseWriter, r *http.Request) {
	tag, err := TagKey(r.PathValue("tag"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := auth.UserFrom(r.Context())
	build := func() (*page, error) {
		before, err := web.QueryID(r, "before")
		if err != nil {
			return nil, err
		}
		f, err := a.svc.Tagged(r.Context(), u, tag, before)
		if err != nil {
			return nil, err
		}
		p := feedPage(r, u, "tag", "#"+tag, f)
		p.Tag = tag
		return p, nil
	}
	if visitor(r) {
		a.serveVisitor(w, r, "tag:"+tag, build)
		return
	}
	p, err := build()
	a.render(w, r, p, err)
}
