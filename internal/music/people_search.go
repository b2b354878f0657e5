package music

import (
	"net/http"
	"net/url"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/text"
)

// peopleSearch is the people search page: the users whose username starts
// with ?q=, in name order, paginated by ?after= (the last name shown).
func (a *App) peopleSearch(w http.ResponseWriter, r *http.Request) {
	u := auth.UserFrom(r.Context())
	q := text.Query(r.URL.Query().Get("q"))
	ps, err := a.svc.Search(r.Context(), q, r.URL.Query().Get("after"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p := &page{Title: "Find people", Tab: "people", User: u, Query: q, People: ps}
	if len(ps) == SearchLimit {
		p.Older = "/music/people?q=" + url.QueryEscape(q) + "&after=" + url.QueryEscape(ps[len(ps)-1].Username)
	}
	if p.Unseen, err = a.svc.Unseen(r.Context(), u); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.render(w, r, p, nil)
}
