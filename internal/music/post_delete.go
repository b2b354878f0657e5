package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/web"
)

// postDelete deletes a post (its author, or a moderator) and goes to the
// author's page.
func (a *App) postDelete(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = a.svc.Delete(r.Context(), me(r), id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusOK, map[string]bool{"deleted": true})
		return
	}
	http.Redirect(w, r, personURL(auth.UserFrom(r.Context()).Username), http.StatusSeeOther)
}
