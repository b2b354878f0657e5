package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/text"
)

// peopleSuggest is the type-ahead's answer: the first page of people
// search for ?q= (Service.Search), as the HTML fragment the search page's
// script puts under the box (the page itself works without it). It is the
// viewer's own (their buttons): never stored by a cache.
func (a *App) peopleSuggest(w http.ResponseWriter, r *http.Request) {
	q := text.Query(r.URL.Query().Get("q"))
	ps, err := a.svc.Search(r.Context(), auth.UserFrom(r.Context()), q, db.Cursor{})
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "private, no-store")
	a.Site.Render(w, r, http.StatusOK, peopleList(ps.People, q, auth.UserFrom(r.Context()) != nil))
}
