package music

import (
	"context"
	_ "embed"
	"encoding/json"
	"net/http"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// The JSON API under /music/api/: resources over the same Service as the
// pages, so that the same privacy holds (a post a caller may not see is
// not found, with its comments and counts), described by openapi.json,
// which the tests validate every request and response against (the core's
// openapitest). As roar's API: the platform's cookie session (POST
// /session, or the pages' login), errors as RFC 9457 problem details
// (web.Site.Error answers JSON under /api/), bodies decoded strictly, the
// core's origin check on every unsafe method, keyset pages with the next
// page's URL in "next". Audio posts are listed (kind "audio") but uploaded
// with the page's form only.
//
//	POST   /music/api/session                          log in (cookie session)
//	DELETE /music/api/session                          log out
//	GET    /music/api/me                               the signed-in user
//	GET    /music/api/posts                            everyone's (?before)
//	POST   /music/api/posts                            share a link
//	GET    /music/api/posts/{id}                       one post
//	DELETE /music/api/posts/{id}                       delete (author or moderator)
//	GET    /music/api/posts/{id}/comments              oldest first (?after)
//	POST   /music/api/posts/{id}/comments              comment
//	PUT    /music/api/posts/{id}/like  + DELETE        like / unlike (idempotent)
//	GET    /music/api/timelines/discovery              my friends' posts and mine
//	GET    /music/api/tags/{tag}/posts                 a hashtag's posts
//	GET    /music/api/users                            people search (?q, ?after)
//	GET    /music/api/users/{username}                 a profile, my relation
//	GET    /music/api/users/{username}/posts           their posts I may see
//	GET    /music/api/friends                          my friends (?after)
//	PUT    /music/api/friends/{username}               accept their request
//	DELETE /music/api/friends/{username}               unfriend
//	GET    /music/api/friend-requests/{incoming,outgoing}   requests (?after)
//	PUT    /music/api/friend-requests/outgoing/{username}   ask them
//	DELETE /music/api/friend-requests/outgoing/{username}   withdraw my request
//	DELETE /music/api/friend-requests/incoming/{username}   decline theirs
//	GET    /music/api/openapi.json                     this API's OpenAPI 3.1 document

//go:embed openapi.json
var openapiJSON []byte

// apiRoutes mounts the JSON API under /music/api/ (rt's prefix).
func (a *App) apiRoutes(rt *web.Router) {
	signed := rt.Group(auth.SignedIn(nil)) // a visitor: 401 in JSON
	rt.Get("/openapi.json", web.APIDocument(openapiJSON))

	rt.Post("/session", a.Auth.APILogin(func(w http.ResponseWriter, r *http.Request, u *auth.User) { a.apiMeOf(w, r, u) }))
	rt.Delete("/session", a.Auth.APILogout)
	signed.Get("/me", func(w http.ResponseWriter, r *http.Request) { a.apiMeOf(w, r, me(r)) })

	rt.Get("/posts", a.apiEveryone)
	signed.Post("/posts", a.apiShare)
	rt.Get("/posts/{id}", a.apiPostShow)
	signed.Delete("/posts/{id}", a.apiPostDelete)
	rt.Get("/posts/{id}/comments", a.apiComments)
	signed.Post("/posts/{id}/comments", a.apiComment)
	signed.Put("/posts/{id}/like", a.apiLike)
	signed.Delete("/posts/{id}/like", a.apiLike)

	signed.Get("/timelines/discovery", a.apiDiscovery)
	rt.Get("/tags/{tag}/posts", a.apiTagged)
	rt.Get("/users", a.apiSearch)
	rt.Get("/users/{username}", a.apiPerson)
	rt.Get("/users/{username}/posts", a.apiPersonPosts)

	signed.Get("/friends", a.apiFriends)
	signed.Put("/friends/{username}", a.apiRelate("accept"))
	signed.Delete("/friends/{username}", a.apiRelate("unfriend"))
	signed.Get("/friend-requests/incoming", a.apiRequests(true))
	signed.Get("/friend-requests/outgoing", a.apiRequests(false))
	signed.Put("/friend-requests/outgoing/{username}", a.apiRelate("befriend"))
	signed.Delete("/friend-requests/outgoing/{username}", a.apiRelate("cancel"))
	signed.Delete("/friend-requests/incoming/{username}", a.apiRelate("decline"))

	// A visitor's first page of everyone's posts, cached at music's version
	// and served by the hot lane: public posts only, as the pages.
	a.Site.Hot(rt.Pattern("GET", "/posts"), a.hot(func(web.HotRequest) string { return apiEveryoneKey }))
}

func (a *App) apiMeOf(w http.ResponseWriter, r *http.Request, u *auth.User) {
	unread, err := a.svc.Unseen(r.Context(), u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, apiMe(u, unread))
}

// PostList is a page of posts with the URL of the next page, if any.
type PostList struct {
	Posts []*APIPost `json:"posts"`
	Next  string     `json:"next,omitempty"`
}

// postList is f as a page of the API; the next page's URL keeps r's path.
func postList(r *http.Request, f *Feed, signedIn bool) *PostList {
	out := &PostList{Posts: make([]*APIPost, len(f.Posts))}
	for i := range f.Posts {
		out.Posts[i] = apiPost(&f.Posts[i], signedIn)
	}
	if f.Next != 0 {
		out.Next = nextURL(r, "before", itoa(f.Next))
	}
	return out
}

// nextURL is r's path with the one cursor parameter set to v (and the
// other parameters kept: a search's q).
func nextURL(r *http.Request, cursor, v string) string {
	q := r.URL.Query()
	q.Set(cursor, v)
	return r.URL.Path + "?" + q.Encode()
}

// queryCursor reads the ?after= cursor of a page of people: absent is the
// start; anything but a cursor a page gave is the client's error.
func queryCursor(r *http.Request) (db.Cursor, error) {
	if r.URL.RawQuery == "" {
		return db.Cursor{}, nil
	}
	s := r.URL.Query().Get("after")
	if s == "" {
		return db.Cursor{}, nil
	}
	c := db.ParseCursor(s)
	if c.IsZero() {
		return c, errs.BadQuery("after", "the cursor of a previous page's next link")
	}
	return c, nil
}

// apiEveryoneKey is the visitors' cached first page of GET /posts.
const apiEveryoneKey = "api:everyone"

// apiEveryone is everyone's public posts (and, for a signed-in caller, their
// friends'), newest first. A visitor's first page is the same for all and
// is served from the cache at music's version, with an ETag (304 to
// If-None-Match) and gzip bytes; a write makes the next request see it.
func (a *App) apiEveryone(w http.ResponseWriter, r *http.Request) {
	before, err := web.QueryID(r, "before")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := auth.UserFrom(r.Context())
	if u == nil && r.URL.RawQuery == "" {
		a.serveJSON(w, r, apiEveryoneKey, func() (any, error) {
			f, err := a.svc.Everyone(r.Context(), nil, 0)
			if err != nil {
				return nil, err
			}
			return postList(r, f, false), nil
		})
		return
	}
	f, err := a.svc.Everyone(r.Context(), u, before)
	a.answerPosts(w, r, f, err)
}

// serveJSON serves the visitors' JSON page key from the cache at music's
// version (serveVisitor for JSON), building it from v on a miss.
func (a *App) serveJSON(w http.ResponseWriter, r *http.Request, key string, build func() (any, error)) {
	ctx := r.Context()
	ver, err := a.svc.VisitorVersion(ctx)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	err = a.pages.Serve(w, r, key, ver, func(context.Context) (*web.Page, time.Duration, error) {
		v, err := build()
		if err != nil {
			return nil, 0, err
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, 0, err
		}
		return web.NewPage("application/json", append(b, '\n'), ""), pageTTL, nil
	})
	if err != nil {
		a.Site.Error(w, r, err)
	}
}

// answerPosts answers a timeline page, or err.
func (a *App) answerPosts(w http.ResponseWriter, r *http.Request, f *Feed, err error) {
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, postList(r, f, auth.UserFrom(r.Context()) != nil))
}

func (a *App) apiDiscovery(w http.ResponseWriter, r *http.Request) {
	before, err := web.QueryID(r, "before")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	f, err := a.svc.Discovery(r.Context(), me(r), before)
	a.answerPosts(w, r, f, err)
}

func (a *App) apiTagged(w http.ResponseWriter, r *http.Request) {
	tag, err := TagKey(r.PathValue("tag"))
	if err != nil {
		a.Site.Error(w, r, errs.E(errs.NotFound, "That is not a hashtag."))
		return
	}
	before, err := web.QueryID(r, "before")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	f, err := a.svc.Tagged(r.Context(), auth.UserFrom(r.Context()), tag, before)
	a.answerPosts(w, r, f, err)
}

func (a *App) apiPersonPosts(w http.ResponseWriter, r *http.Request) {
	before, err := web.QueryID(r, "before")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	var f *Feed
	p, err := a.svc.Person(r.Context(), auth.UserFrom(r.Context()), r.PathValue("username"), before)
	if err == nil {
		f = p.Feed
	}
	a.answerPosts(w, r, f, err)
}
