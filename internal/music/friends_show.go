package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/db"
)

// friendsShow is my friends (paginated by ?after=) and the friend requests
// I received and sent, to answer or withdraw.
func (a *App) friendsShow(w http.ResponseWriter, r *http.Request) {
	u, ctx := me(r), r.Context()
	after := db.ParseCursor(r.URL.Query().Get("after"))
	fr, err := a.svc.Friends(ctx, u, after)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p := &page{Title: "Friends", Tab: "friends", User: u, Links: fr.Links}
	if !fr.Next.IsZero() {
		p.Older = "/music/friends?after=" + fr.Next.String()
	}
	if after.IsZero() {
		in, err := a.svc.Requests(ctx, u, true, db.Cursor{})
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		out, err := a.svc.Requests(ctx, u, false, db.Cursor{})
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		p.Incoming, p.Outgoing = in.Links, out.Links
	}
	if p.Unseen, err = a.svc.Unseen(ctx, u); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.render(w, r, p, nil)
}
