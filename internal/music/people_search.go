package music

import (
	"net/http"
	"net/url"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/text"
)

// peopleSearch is the people search page: the people with a name word
// starting with each word of ?q= (Service.Search), each with the button of
// how the viewer stands to them, paginated by ?after= (a cursor).
func (a *App) peopleSearch(w http.ResponseWriter, r *http.Request) {
	u := auth.UserFrom(r.Context())
	q := text.Query(r.URL.Query().Get("q"))
	ps, err := a.svc.Search(r.Context(), u, q, db.ParseCursor(r.URL.Query().Get("after")))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p := &page{Title: "Find people", Tab: "people", User: u, Query: q, People: ps.People}
	if !ps.Next.IsZero() {
		p.Older = "/music/people?q=" + url.QueryEscape(q) + "&after=" + ps.Next.String()
	}
	if p.Unseen, err = a.svc.Unseen(r.Context(), u); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.render(w, r, p, nil)
}
