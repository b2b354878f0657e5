package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/web"
)

// notificationsShow is my notifications, newest first, grouped (likes of
// one post gathered), paginated by ?before=.
func (a *App) notificationsShow(w http.ResponseWriter, r *http.Request) {
	before, err := web.QueryID(r, "before")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := me(r)
	n, err := a.svc.Notifications(r.Context(), u, before)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p := &page{Title: "Notifications", Tab: "notifications", User: u, Notes: n, Unseen: n.Unseen}
	if n.Next != 0 {
		p.Older = "/music/notifications?before=" + itoa(n.Next)
	}
	a.render(w, r, p, nil)
}
