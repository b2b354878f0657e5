package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/web"
)

// shareShow is a share link's page, /music/s/{token}: the one post the
// link opens and its comments, for anyone who has it (Service.Shared); a
// made-up or revoked token is not found. The page is never stored by a
// cache (so that revoking ends it at once; it is not in the hot lane
// either), never indexed, and sends no Referer: the address is the secret.
func (a *App) shareShow(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Robots-Tag", "noindex, nofollow")
	h.Set("Referrer-Policy", "no-referrer")
	t, err := a.svc.Shared(r.Context(), r.PathValue("token"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := auth.UserFrom(r.Context())
	p := &page{Title: "A post shared with you by @" + t.Post.Author.Username, Tab: "shared", User: u,
		Post: t.Post, Comments: t.Comments, ShareToken: r.PathValue("token")}
	if p.Unseen, err = a.svc.Unseen(r.Context(), u); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.render(w, r, p, nil)
}

// withShareLink adds to the page of post p.Post what its author sees of
// its share link: the box to make one, or the link and the way to revoke
// it. Only a friends-only post of the viewer's own has one.
func (a *App) withShareLink(r *http.Request, p *page) error {
	t := p.Post
	if p.User == nil || t.RepostOf != nil || t.Public() || t.Author.ID != p.User.ID {
		return nil
	}
	token, err := a.svc.ShareLink(r.Context(), p.User, t.ID)
	if err != nil {
		return err
	}
	p.ShareOwn = true
	if token != "" {
		p.ShareURL = web.Origin(r) + shareURL(token)
	}
	return nil
}

func shareURL(token string) string { return "/music/s/" + token }
