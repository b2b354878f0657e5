package music

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// Routes mounts music under /music/. Pages everyone may read come first;
// then what needs a signed-in user, each wrapped by signedIn (the one
// place that checks it); visitors' cached pages go in the hot lane.
func (a *App) Routes(mux *http.ServeMux) {
	a.Site.Static(a.Assets)
	// Everyone (a visitor sees the public posts only).
	mux.HandleFunc("GET /music/{$}", a.homeShow)
	mux.HandleFunc("GET /music/everyone", a.everyoneShow)
	mux.HandleFunc("GET /music/hot", a.hotShow)
	mux.HandleFunc("GET /music/tags/{tag}", a.tagShow)
	mux.HandleFunc("GET /music/u/{name}", a.personShow)
	mux.HandleFunc("GET /music/p/{id}", a.postShow)
	mux.HandleFunc("GET /music/people", a.peopleSearch)
	mux.HandleFunc("GET /music/people/suggest", a.peopleSuggest)

	// Signed in.
	for pattern, h := range map[string]http.HandlerFunc{
		"GET /music/friends":              a.friendsShow,
		"GET /music/notifications":        a.notificationsShow,
		"POST /music/notifications/seen":  a.notificationsSeen,
		"GET /music/stream":               a.stream,
		"POST /music/posts":               a.postCreate,
		"POST /music/p/{id}/comments":     a.commentCreate,
		"POST /music/p/{id}/like":         a.postLike,
		"POST /music/p/{id}/repost":       a.postRepost,
		"POST /music/p/{id}/comments-off": a.postCommentsOff,
		"GET /music/p/{id}/delete":        a.postDeleteConfirm,
		"POST /music/p/{id}/delete":       a.postDelete,
		"GET /music/p/{id}/report":        a.reportForm,
		"POST /music/p/{id}/report":       a.reportCreate,
		"GET /music/reports":              a.reportsShow,
		"POST /music/p/{id}/dismiss":      a.reportDismiss,
		"POST /music/u/{name}/{verb}":     a.personRelate,
	} {
		mux.Handle(pattern, a.signedIn(h))
	}

	// Visitors' cached pages, served ahead of the middleware chain on a hit.
	a.Site.Hot("GET /music/{$}", a.hot(func(web.HotRequest) string { return "everyone" }))
	a.Site.Hot("GET /music/everyone", a.hot(func(web.HotRequest) string { return "everyone" }))
	a.Site.Hot("GET /music/hot", a.hot(func(web.HotRequest) string { return a.hotKey() }))
	a.Site.Hot("GET /music/tags/{tag}", a.hot(func(h web.HotRequest) string { return tagKey(h.Args[0]) }))
	a.Site.Hot("GET /music/u/{name}", a.hot(func(h web.HotRequest) string { return personKey(h.Args[0]) }))
	a.Site.Hot("GET /music/p/{id}", a.hot(func(h web.HotRequest) string { return postKey(h.Args[0]) }))
}

// signedIn lets only signed-in users through: a visitor is sent to sign in
// (GET: back to the page; POST: back to where the form was), an API client
// gets 401.
func (a *App) signedIn(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth.UserFrom(r.Context()) != nil {
			h(w, r)
			return
		}
		switch {
		case web.WantsJSON(r):
			a.Site.Error(w, r, errSignIn)
		case r.Method == http.MethodGet:
			http.Redirect(w, r, auth.LoginURL(r.URL.RequestURI()), http.StatusSeeOther)
		default:
			http.Redirect(w, r, auth.LoginURL(back(r)), http.StatusSeeOther)
		}
	})
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

// queryID reads a positive id from the query (0 if absent); junk is 400.
func queryID(r *http.Request, name string) (int64, error) {
	if r.URL.RawQuery == "" {
		return 0, nil
	}
	s := r.URL.Query().Get(name)
	if s == "" {
		return 0, nil
	}
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id < 0 {
		return 0, errs.BadQuery(name, "an id (a positive whole number)")
	}
	return id, nil
}

// back is where a form without JavaScript returns to: the page it was on
// (same site, under /music/), else music's front page.
func back(r *http.Request) string {
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host && strings.HasPrefix(ref.Path, "/music/") {
		if ref.RawQuery != "" {
			return ref.Path + "?" + ref.RawQuery
		}
		return ref.Path
	}
	return "/music/"
}

// done answers a form's success: JSON v for a script, else back to the page.
func (a *App) done(w http.ResponseWriter, r *http.Request, v any) {
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusOK, v)
		return
	}
	http.Redirect(w, r, back(r), http.StatusSeeOther)
}
