package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
)

// personRelate does the path's verb to the person: befriend, accept,
// decline, cancel, unfriend, block, unblock, mute, unmute.
func (a *App) personRelate(w http.ResponseWriter, r *http.Request) {
	verb := r.PathValue("verb")
	if !Verbs[verb] {
		a.Site.Error(w, r, errs.ErrNotFound)
		return
	}
	if err := a.svc.Relate(r.Context(), me(r), r.PathValue("name"), verb); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.done(w, r, map[string]bool{"ok": true})
}
