package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/web"
)

// shareCreate makes the share link of the viewer's friends-only post (or
// keeps the one it has) and returns to the post's page, which shows it.
func (a *App) shareCreate(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	token, err := a.svc.MakeShareLink(r.Context(), me(r), id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusOK, map[string]string{"url": web.Origin(r) + shareURL(token)})
		return
	}
	http.Redirect(w, r, postURL(id)+"#share-link", http.StatusSeeOther)
}
