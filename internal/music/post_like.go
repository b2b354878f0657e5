package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/web"
)

// postLike sets whether I like a post (on=true or false) and answers its
// like count.
func (a *App) postLike(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = web.ParseForm(r, 1<<10)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	n, err := a.svc.Like(r.Context(), me(r), id, r.PostForm.Get("on") != "false")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.Done(w, r, "/music/", map[string]int64{"likes": n})
}
