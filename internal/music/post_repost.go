package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/web"
)

// postRepost shares a public post with my friends (once).
func (a *App) postRepost(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = a.svc.Repost(r.Context(), me(r), id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.Done(w, r, "/music/", map[string]bool{"reposted": true})
}
