package roar

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// Routes mounts roar under /roar/ (pages) and /roar/api/ (the JSON API).
func (a *App) Routes(mux *http.ServeMux) {
	a.Site.Static(a.assets)
	mux.HandleFunc("GET /roar/{$}", a.publicPage)
	mux.HandleFunc("GET /roar/home", a.homePage)
	mux.HandleFunc("GET /roar/tags/{tag}", a.tagPage)
	mux.HandleFunc("GET /roar/u/{name}", a.profilePage)
	mux.HandleFunc("GET /roar/r/{id}", a.threadPage)
	mux.HandleFunc("GET /roar/live", a.livePoll)
	mux.HandleFunc("GET /roar/stream", a.stream)
	mux.HandleFunc("GET /roar/notifications", a.notificationsShow)
	mux.HandleFunc("GET /roar/reports", a.reportsShow)

	mux.HandleFunc("POST /roar/roars", a.postCreate)
	mux.HandleFunc("POST /roar/notifications/seen", a.notificationsSeen)
	mux.HandleFunc("POST /roar/r/{id}/like", a.toggle("liked", "likes", a.svc.Like))
	mux.HandleFunc("POST /roar/r/{id}/repost", a.toggle("reposted", "reposts", a.svc.Repost))
	mux.HandleFunc("POST /roar/r/{id}/delete", a.roarDelete)
	mux.HandleFunc("GET /roar/r/{id}/report", a.reportForm)
	mux.HandleFunc("POST /roar/r/{id}/report", a.reportCreate)
	mux.HandleFunc("POST /roar/r/{id}/dismiss", a.reportDismiss)
	mux.HandleFunc("POST /roar/u/{name}/{verb}", a.relationSet)
	a.apiRoutes(mux)
	// Visitors' cached pages, served ahead of the middleware chain on a hit.
	a.Site.Hot("GET /roar/{$}", a.hot("page:public"))
	a.Site.Hot("GET /roar/api/roars", a.hot("api:public"))
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

// queryID reads a positive id from the query (0 if absent); junk is a bad
// request (400 with a plain message: a page has no field to mark).
func queryID(r *http.Request, name string) (int64, error) {
	if r.URL.RawQuery == "" { // the common case, parsed for free
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
// (same site, under /roar/), else the public timeline.
func back(r *http.Request) string {
	if ref, err := url.Parse(r.Referer()); err == nil && ref.Host == r.Host && strings.HasPrefix(ref.Path, "/roar/") {
		if ref.RawQuery != "" {
			return ref.Path + "?" + ref.RawQuery
		}
		return ref.Path
	}
	return "/roar/"
}

// user returns the signed-in user or answers (login redirect or 401).
func (a *App) user(w http.ResponseWriter, r *http.Request) (*auth.User, bool) {
	if u := auth.UserFrom(r.Context()); u != nil {
		return u, true
	}
	switch {
	case web.WantsJSON(r):
		a.Site.Error(w, r, errSignIn)
	case r.Method == http.MethodGet:
		http.Redirect(w, r, auth.LoginURL(r.URL.RequestURI()), http.StatusSeeOther)
	default:
		http.Redirect(w, r, auth.LoginURL(back(r)), http.StatusSeeOther)
	}
	return nil, false
}

func (a *App) done(w http.ResponseWriter, r *http.Request, v any) {
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusOK, v)
		return
	}
	http.Redirect(w, r, back(r), http.StatusSeeOther)
}
