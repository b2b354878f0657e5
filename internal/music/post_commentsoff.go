package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/web"
)

// postCommentsOff turns comments off (off=true) or on (off=false) on my post.
func (a *App) postCommentsOff(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = web.ParseForm(r, 1<<10)
	}
	if err == nil {
		err = a.svc.CommentsOff(r.Context(), me(r), id, r.PostForm.Get("off") != "false")
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.Done(w, r, "/music/", map[string]bool{"ok": true})
}
