package music

import "net/http"

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
	a.done(w, r, map[string]bool{"ok": true})
}
