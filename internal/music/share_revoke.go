package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/web"
)

// shareRevokeConfirm is the page that asks before a share link is revoked
// and says what follows; its form posts to shareRevoke. A post without a
// link goes back to its page.
func (a *App) shareRevokeConfirm(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := me(r)
	t, err := a.svc.Thread(r.Context(), u, id, 0)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p := &page{Title: "Revoke the share link?", Tab: "unshare", User: u, Unseen: t.Unseen, Post: t.Post}
	if err := a.withShareLink(r, p); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if !p.ShareOwn {
		a.Site.Error(w, r, errNotYours)
		return
	}
	if p.ShareURL == "" {
		http.Redirect(w, r, postURL(id), http.StatusSeeOther)
		return
	}
	a.render(w, r, p, nil)
}

// shareRevoke revokes the share link of the viewer's post: from now on
// the link is not found.
func (a *App) shareRevoke(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if err := a.svc.RevokeShareLink(r.Context(), me(r), id); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusOK, map[string]bool{"ok": true})
		return
	}
	http.Redirect(w, r, postURL(id)+"#share-link", http.StatusSeeOther)
}
