package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/text"
)

// peopleSuggest is the type-ahead's answer: the list of people whose
// username starts with ?q=, as an HTML fragment the search page's script
// puts under the box (the page itself works without it).
func (a *App) peopleSuggest(w http.ResponseWriter, r *http.Request) {
	q := text.Query(r.URL.Query().Get("q"))
	ps, err := a.svc.Search(r.Context(), q, "")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	a.Site.Render(w, r, http.StatusOK, peopleList(ps, q))
}
