package roar

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/tags"
	"github.com/tutti-dev/tutti/internal/web"
)

// The JSON API under /roar/api/: resources over the same Service as the
// pages (service*.go), described by openapi.json, which the tests validate
// every request and response against. Errors are RFC 9457 problem details
// (web.Site.Error answers JSON for /api/ paths); bodies are decoded strictly.
//
//	POST   /roar/api/session                       log in (cookie session)
//	DELETE /roar/api/session                       log out
//	GET    /roar/api/me                            the signed-in user
//	GET    /roar/api/roars                         public timeline (?before, ?since, ?limit)
//	POST   /roar/api/roars                         post a roar or a reply
//	GET    /roar/api/roars/{id}                    one roar
//	DELETE /roar/api/roars/{id}                    delete (author or moderator)
//	GET    /roar/api/roars/{id}/replies            replies, oldest first (?after, ?limit)
//	GET    /roar/api/roars/{id}/thread             the roars it replies to, oldest first
//	PUT    /roar/api/roars/{id}/like   + DELETE    like / unlike (idempotent)
//	PUT    /roar/api/roars/{id}/repost + DELETE    repost / undo (idempotent)
//	POST   /roar/api/roars/{id}/reports            report to the moderators
//	GET    /roar/api/timelines/home                people I follow, and me
//	GET    /roar/api/tags/{tag}/roars              a hashtag's roars
//	GET    /roar/api/users/{username}              profile, counts, my relation
//	GET    /roar/api/users/{username}/roars        their roars and reposts
//	PUT    /roar/api/users/{username}/{follow,mute,block} + DELETE
//	GET    /roar/api/notifications                 newest first (?before, ?limit)
//	POST   /roar/api/notifications/seen            mark seen up to an id
//	GET    /roar/api/reports                       open reports (moderators)
//	DELETE /roar/api/reports/{roar_id}             dismiss them (moderators)
//	GET    /roar/api/openapi.json                  this API's OpenAPI 3.1 document

//go:embed openapi.json
var openapiJSON []byte

// apiRoutes mounts the JSON API under /roar/api/ (rt's prefix).
func (a *App) apiRoutes(rt *web.Router) {
	signed := rt.Group(auth.SignedIn(nil))
	mods := signed.Group(auth.RequireRole("roar", RoleModerator, a.notModerator))
	rt.Get("/openapi.json", web.APIDocument(openapiJSON))

	rt.Post("/session", a.Auth.APILogin(func(w http.ResponseWriter, r *http.Request, u *auth.User) {
		a.me(w, r, u, http.StatusOK)
	}))
	rt.Delete("/session", a.Auth.APILogout)
	signed.Get("/me", a.apiMe)

	rt.Get("/roars", a.apiPublic)
	signed.Post("/roars", a.apiPost)
	rt.Get("/roars/{id}", a.apiRoarShow)
	signed.Delete("/roars/{id}", a.apiRoarDelete)
	rt.Get("/roars/{id}/replies", a.apiReplies)
	rt.Get("/roars/{id}/thread", a.apiThread)
	like, repost := a.apiToggle("liked", "likes", a.svc.Like), a.apiToggle("reposted", "reposts", a.svc.Repost)
	signed.Put("/roars/{id}/like", like)
	signed.Delete("/roars/{id}/like", like)
	signed.Put("/roars/{id}/repost", repost)
	signed.Delete("/roars/{id}/repost", repost)
	signed.Post("/roars/{id}/reports", a.apiReport)

	signed.Get("/timelines/home", a.apiHome)
	rt.Get("/tags/{tag}/roars", a.apiTag)
	rt.Get("/users/{username}", a.apiProfile)
	rt.Get("/users/{username}/roars", a.apiUserRoars)
	for _, kind := range []string{"follow", "mute", "block"} {
		signed.Put("/users/{username}/"+kind, a.apiRelate(kind, true))
		signed.Delete("/users/{username}/"+kind, a.apiRelate(kind, false))
	}

	signed.Get("/notifications", a.apiNotifications)
	signed.Post("/notifications/seen", a.apiSeen)
	mods.Get("/reports", a.apiReports)
	mods.Delete("/reports/{roar_id}", a.apiDismiss)
}

// RoarList is a page of roars with the URL of the next page, if any.
type RoarList struct {
	Roars []*APIRoar `json:"roars"`
	Next  string     `json:"next,omitempty"`
}

// maxLimit is the largest page the API gives: the seed's newest 200.
const maxLimit = pageSize

// queryLimit reads ?limit= (1..max); absent: def.
func queryLimit(r *http.Request, def, max int) (int, error) {
	if r.URL.RawQuery == "" {
		return def, nil
	}
	s := r.URL.Query().Get("limit")
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > max {
		return 0, errs.BadQuery("limit", "a whole number from 1 to "+strconv.Itoa(max))
	}
	return n, nil
}

// listQuery reads the keyset cursors of a timeline: ?before= (older, newest
// first) or ?since= (newer, oldest first), and ?limit=.
func listQuery(r *http.Request) (Query, error) {
	before, err := web.QueryID(r, "before")
	if err != nil {
		return Query{}, err
	}
	since, err := web.QueryID(r, "since")
	if err != nil {
		return Query{}, err
	}
	if before > 0 && since > 0 {
		return Query{}, errs.E(errs.BadRequest, "Use the before or the since parameter, not both.")
	}
	limit, err := queryLimit(r, maxLimit, maxLimit)
	if err != nil {
		return Query{}, err
	}
	return Query{Before: before, Since: since, Limit: limit}, nil
}

// roarList is feed, the page q selected, without the authors its viewer
// does not see. The next page's URL keeps r's path and limit and moves the
// cursor.
func roarList(r *http.Request, q Query, feed *Feed) *RoarList {
	roars, v, next := feed.Roars, feed.Viewer, feed.Next
	out := &RoarList{Roars: make([]*APIRoar, 0, len(roars))}
	for i := range roars {
		if !v.Rel.Hides(&roars[i]) {
			out.Roars = append(out.Roars, apiRoar(&roars[i], v))
		}
	}
	if next != 0 {
		cursor := "before"
		if q.Since > 0 || q.Thread > 0 {
			cursor = "since" // oldest first: the next page is newer
			if q.Thread > 0 {
				cursor = "after"
			}
		}
		out.Next = nextURL(r, cursor, next)
	}
	return out
}

// nextURL is r's URL with the cursor parameter set to id (and the other
// cursors dropped).
func nextURL(r *http.Request, cursor string, id int64) string {
	q := url.Values{}
	if l := r.URL.Query().Get("limit"); l != "" {
		q.Set("limit", l)
	}
	q.Set(cursor, itoa(id))
	return r.URL.Path + "?" + q.Encode()
}

// serveList answers a timeline for the request's user.
func (a *App) serveList(w http.ResponseWriter, r *http.Request, q Query) {
	feed, err := a.svc.Timeline(r.Context(), auth.UserFrom(r.Context()), q)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, roarList(r, q, feed))
}

// apiPublic is everyone's roars. A visitor's first page is the same for all
// and is served from the cache at the current version, with an ETag (304 to
// If-None-Match) and gzip bytes; a write makes the next request see it.
func (a *App) apiPublic(w http.ResponseWriter, r *http.Request) {
	q, err := listQuery(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if auth.UserFrom(r.Context()) == nil && q == (Query{Limit: maxLimit}) {
		a.serveCached(w, r, "api:public", "application/json", func() ([]byte, error) {
			feed, err := a.svc.Timeline(r.Context(), nil, Query{})
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(roarList(r, Query{}, feed))
			return append(b, '\n'), err
		})
		return
	}
	a.serveList(w, r, q)
}

func (a *App) apiHome(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	q, err := listQuery(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	q.Home = u.ID
	a.serveList(w, r, q)
}

func (a *App) apiTag(w http.ResponseWriter, r *http.Request) {
	tag, ok := tags.Key(r.PathValue("tag"))
	if !ok {
		a.Site.Error(w, r, errs.E(errs.NotFound, "That is not a hashtag."))
		return
	}
	q, err := listQuery(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	q.Tag = tag
	a.serveList(w, r, q)
}
