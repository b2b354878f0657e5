package music

import (
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// Routes mounts music under /music/. Pages everyone may read come first;
// then what needs a signed-in user, in the signed group (a visitor is sent
// to sign in, an API client gets 401), and what needs a moderator, in
// mods; visitors' cached pages go in the hot lane.
func (a *App) Routes(rt *web.Router) {
	a.Site.Static(a.Assets)
	signed := rt.Group(auth.SignedIn(nil)) // a visitor: the sign-in page, or 401 in JSON
	mods := signed.Group(auth.RequireRole("music", RoleModerator, a.notModerator))

	// Everyone (a visitor sees the public posts only).
	rt.Get("/{$}", a.homeShow)
	rt.Get("/everyone", a.everyoneShow)
	rt.Get("/hot", a.hotShow)
	rt.Get("/tags/{tag}", a.tagShow)
	rt.Get("/u/{name}", a.personShow)
	rt.Get("/p/{id}", a.postShow)
	rt.Get("/people", a.peopleSearch)
	rt.Get("/people/suggest", a.peopleSuggest)
	rt.Get("/audio", a.audioShow)
	rt.Get("/p/{id}/audio", a.audioServe)
	rt.Post("/p/{id}/play", a.audioPlay) // visitors count too (public audio)
	rt.Get("/s/{token}", a.shareShow)    // a share link: never cached, never in the hot lane

	signed.Get("/friends", a.friendsShow)
	signed.Get("/notifications", a.notificationsShow)
	signed.Post("/notifications/seen", a.notificationsSeen)
	signed.Get("/stream", a.stream)
	signed.Handle(http.MethodPost, "/posts", web.MaxBody(audioFormBody, http.HandlerFunc(a.postCreate)))
	signed.Post("/p/{id}/comments", a.commentCreate)
	signed.Post("/p/{id}/like", a.postLike)
	signed.Post("/p/{id}/repost", a.postRepost)
	signed.Post("/p/{id}/comments-off", a.postCommentsOff)
	signed.Get("/p/{id}/delete", a.postDeleteConfirm)
	signed.Post("/p/{id}/delete", a.postDelete) // its author or a moderator: the service decides
	signed.Get("/p/{id}/report", a.reportForm)
	signed.Post("/p/{id}/report", a.reportCreate)
	signed.Post("/u/{name}/{verb}", a.personRelate)
	signed.Post("/p/{id}/share", a.shareCreate)
	signed.Get("/p/{id}/share/revoke", a.shareRevokeConfirm)
	signed.Post("/p/{id}/share/revoke", a.shareRevoke)

	mods.Get("/reports", a.reportsShow)
	mods.Post("/p/{id}/dismiss", a.reportDismiss)
	a.apiRoutes(rt.Route("/api")) // the JSON API (api.go)

	// Visitors' cached pages, served ahead of the middleware chain on a hit.
	a.Site.Hot(rt.Pattern("GET", "/{$}"), a.hot(func(web.HotRequest) string { return "everyone" }))
	a.Site.Hot(rt.Pattern("GET", "/everyone"), a.hot(func(web.HotRequest) string { return "everyone" }))
	a.Site.Hot(rt.Pattern("GET", "/audio"), a.hot(func(web.HotRequest) string { return "audio" }))
	a.Site.Hot(rt.Pattern("GET", "/hot"), a.hot(func(web.HotRequest) string { return a.hotKey() }))
	a.Site.Hot(rt.Pattern("GET", "/tags/{tag}"), a.hot(func(h web.HotRequest) string { return tagKey(h.Args[0]) }))
	a.Site.Hot(rt.Pattern("GET", "/u/{name}"), a.hot(func(h web.HotRequest) string { return personKey(h.Args[0]) }))
	a.Site.Hot(rt.Pattern("GET", "/p/{id}"), a.hot(func(h web.HotRequest) string { return postKey(h.Args[0]) }))
}

// notModerator answers a signed-in user who is not a moderator: 403.
func (a *App) notModerator(w http.ResponseWriter, r *http.Request) {
	a.Site.Error(w, r, errModerators)
}

// me is the signed-in user of a handler behind signedIn.
func me(r *http.Request) *auth.User { return auth.UserFrom(r.Context()) }

// pathID is the {id} path value as a post id; anything else is not found.
func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, errs.ErrNotFound
	}
	return id, nil
}
