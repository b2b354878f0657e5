package music

import "net/http"

// postDeleteConfirm asks before deleting a post (without JavaScript too).
func (a *App) postDeleteConfirm(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := me(r)
	post, err := a.svc.Post(r.Context(), u, id)
	if err == nil && post.Author.ID != u.ID && !canModerate(u) {
		err = errNotYours
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p := &page{Title: "Delete this post?", Tab: "delete", User: u, Post: post}
	if p.Unseen, err = a.svc.Unseen(r.Context(), u); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.render(w, r, p, nil)
}
