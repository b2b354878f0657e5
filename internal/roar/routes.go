package roar

import (
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// Routes mounts roar under /roar/ (pages) and /roar/api/ (the JSON API).
// What needs a signed-in user is in the signed group (a visitor is sent
// to sign in, or answered 401 in JSON); what needs a moderator, in mods.
func (a *App) Routes(rt *web.Router) {
	a.Site.Static(a.assets)
	signed := rt.Group(auth.SignedIn(nil)) // a visitor: the sign-in page, or 401 in JSON
	mods := signed.Group(auth.RequireRole("roar", RoleModerator, a.notModerator))

	rt.Get("/{$}", a.publicPage)
	rt.Get("/tags/{tag}", a.tagPage)
	rt.Get("/u/{name}", a.profilePage)
	rt.Get("/r/{id}", a.threadPage)
	rt.Get("/live", a.livePoll)
	rt.Get("/stream", a.stream)

	signed.Get("/home", a.homePage)
	signed.Get("/notifications", a.notificationsShow)
	signed.Post("/roars", a.postCreate)
	signed.Post("/notifications/seen", a.notificationsSeen)
	signed.Post("/r/{id}/like", a.toggle("liked", "likes", a.svc.Like))
	signed.Post("/r/{id}/repost", a.toggle("reposted", "reposts", a.svc.Repost))
	signed.Post("/r/{id}/delete", a.roarDelete) // its author or a moderator: the service decides
	signed.Get("/r/{id}/report", a.reportForm)
	signed.Post("/r/{id}/report", a.reportCreate)
	signed.Post("/u/{name}/{verb}", a.relationSet)

	mods.Get("/reports", a.reportsShow)
	mods.Post("/r/{id}/dismiss", a.reportDismiss)

	a.apiRoutes(rt.Route("/api"))
	// Visitors' cached pages, served ahead of the middleware chain on a hit.
	a.Site.Hot(rt.Pattern("GET", "/{$}"), a.hot("page:public"))
	a.Site.Hot(rt.Pattern("GET", "/api/roars"), a.hot("api:public"))
}

// me is the signed-in user of a request that a signed group let through.
func me(r *http.Request) *auth.User { return auth.UserFrom(r.Context()) }

// notModerator answers a signed-in user who is not a moderator: 403.
func (a *App) notModerator(w http.ResponseWriter, r *http.Request) {
	a.Site.Error(w, r, errModerators)
}

// pathID is the {id} path value as a roar id; anything else is not found.
func pathID(r *http.Request) (int64, error) { return pathInt(r, "id") }

// pathInt is the path value name as a positive id; anything else is not found.
func pathInt(r *http.Request, name string) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id <= 0 {
		return 0, errs.ErrNotFound
	}
	return id, nil
}
