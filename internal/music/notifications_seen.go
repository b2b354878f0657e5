package music

import (
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// notificationsSeen marks my notifications up to ?up_to= as read.
func (a *App) notificationsSeen(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 4<<10); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	upTo, err := strconv.ParseInt(r.PostForm.Get("up_to"), 10, 64)
	if err != nil || upTo <= 0 {
		a.Site.Error(w, r, errs.Fields(map[string]string{"up_to": "Not a notification id."}))
		return
	}
	if err := a.svc.MarkSeen(r.Context(), me(r), upTo); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.Done(w, r, "/music/", map[string]bool{"ok": true})
}
