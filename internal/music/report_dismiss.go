package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/web"
)

// reportDismiss closes a post's reports without removing it (moderators).
func (a *App) reportDismiss(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = a.svc.Dismiss(r.Context(), me(r), id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.Done(w, r, "/music/", map[string]bool{"ok": true})
}
