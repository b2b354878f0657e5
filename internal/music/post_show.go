package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/web"
)

// postShow is a post's page: its card and its comments, oldest first,
// paginated (?after=). A post the viewer may not see is not found.
func (a *App) postShow(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := auth.UserFrom(r.Context())
	build := func() (*page, error) {
		after, err := web.QueryID(r, "after")
		if err != nil {
			return nil, err
		}
		return a.postView(r, u, id, after)
	}
	if visitor(r) {
		a.serveVisitor(w, r, "p:"+itoa(id), build)
		return
	}
	p, err := build()
	if p != nil && r.URL.Query().Get("reported") == "1" {
		p.Flash = "Thank you: the moderators will look at this post."
	}
	a.render(w, r, p, err)
}

// postView is post id's page for u from the comment after after.
func (a *App) postView(r *http.Request, u *auth.User, id, after int64) (*page, error) {
	t, err := a.svc.Thread(r.Context(), u, id, after)
	if err != nil {
		return nil, err
	}
	p := &page{Title: "A post by @" + t.Post.Target().Author.Username, Tab: "post", User: u, Unseen: t.Unseen,
		Post: t.Post, Comments: t.Comments}
	if t.Next != 0 {
		p.Older = postURL(id) + "?after=" + itoa(t.Next) + "#comments"
	}
	return p, a.withShareLink(r, p)
}
