package music_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/app/apptest/openapitest"
	"github.com/tutti-dev/tutti/internal/auth"
)

// The contract: every request a test sends to /music/api/ through an API
// caller, and every response, is validated against openapi.json (the
// document the server embeds and serves); so is a request that breaks the
// contract on purpose (the document must refuse it too).
var contract = openapitest.New("openapi.json", "/music/api/")

// TestMain runs the tests and then, when all of them ran, checks that every
// operation of the document under /music/api/ answered a success in one.
func TestMain(m *testing.M) { contract.Main(m) }

const apiPassword = "correct horse battery staple"

// apiHash is apiPassword hashed once, so that making users is cheap.
var apiHash = sync.OnceValues(func() (string, error) { return auth.HashPassword(apiPassword) })

func apiVisitor(t *testing.T, m *app.Main) *openapitest.Caller { return contract.Caller(t, m.URL()) }

// apiLogin logs in as login with password through the API.
func apiLogin(t *testing.T, m *app.Main, login, password string) *openapitest.Caller {
	t.Helper()
	c := apiVisitor(t, m)
	var me struct {
		Username string `json:"username"`
	}
	c.Call("POST", "/music/api/session", map[string]string{"login": login, "password": password}, 200, &me)
	c.Name = me.Username
	return c
}

// apiUser makes the account name and logs in as them through the API.
func apiUser(t *testing.T, m *app.Main, name string) *openapitest.Caller {
	t.Helper()
	h, err := apiHash()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Auth.CreateWithHash(context.Background(), auth.Signup{Username: name, Email: name + "@example.com"}, h); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return apiLogin(t, m, name, apiPassword)
}

// The API's shapes, as a client decodes them.
type (
	apiPostJSON struct {
		ID         int64        `json:"id"`
		URL        string       `json:"url"`
		Kind       string       `json:"kind"`
		Author     apiUserJSON  `json:"author"`
		Link       string       `json:"link"`
		Provider   string       `json:"provider"`
		Player     string       `json:"player"`
		Comment    string       `json:"comment"`
		Visibility string       `json:"visibility"`
		Likes      int64        `json:"likes"`
		Comments   int64        `json:"comments"`
		Liked      *bool        `json:"liked"`
		RepostOf   *apiPostJSON `json:"repost_of"`
	}
	apiUserJSON struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	}
	apiPostsJSON struct {
		Posts []apiPostJSON `json:"posts"`
		Next  string        `json:"next"`
	}
	apiCommentsJSON struct {
		Comments []struct {
			ID     int64       `json:"id"`
			PostID int64       `json:"post_id"`
			Author apiUserJSON `json:"author"`
			Body   string      `json:"body"`
		} `json:"comments"`
		Next string `json:"next"`
	}
	apiPeopleJSON struct {
		People []apiUserJSON `json:"people"`
		Next   string        `json:"next"`
	}
	apiPersonJSON struct {
		Username string `json:"username"`
		Friends  int64  `json:"friends"`
		Relation *struct {
			Me, Friends, Requested, Blocked, Muted bool
			AsksMe                                 bool `json:"asks_me"`
		} `json:"relation"`
	}
)

func (l apiPostsJSON) ids() []int64 {
	out := make([]int64, len(l.Posts))
	for i, p := range l.Posts {
		out[i] = p.ID
	}
	return out
}

func (l apiPeopleJSON) names() []string {
	out := make([]string, len(l.People))
	for i, p := range l.People {
		out[i] = p.Username
	}
	return out
}

func apiShare(c *openapitest.Caller, link, comment, vis string) apiPostJSON {
	c.T.Helper()
	var p apiPostJSON
	in := map[string]string{"url": link, "comment": comment}
	if vis != "" {
		in["visibility"] = vis
	}
	res := c.Call("POST", "/music/api/posts", in, 201, &p)
	if loc := res.Header.Get("Location"); loc != "/music/api/posts/"+itoa(p.ID) {
		c.T.Errorf("Location %q; want /music/api/posts/%d", loc, p.ID)
	}
	return p
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestAPIOpenAPIDocument checks the document: valid OpenAPI 3.1, every
// route the API mounts is in it and nothing else, and it is served byte
// for byte with an ETag that answers 304.
func TestAPIOpenAPIDocument(t *testing.T) {
	doc, err := contract.Doc()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") || doc.Components.SecuritySchemes["session"] == nil {
		t.Errorf("openapi %q, session scheme %v; want 3.1.x with a session scheme", doc.OpenAPI, doc.Components.SecuritySchemes["session"])
	}
	// The routes apiRoutes mounts (kept in step with api.go by hand), and
	// some it does not.
	contract.HasRoutes(t,
		"GET /music/api/openapi.json", "POST /music/api/session", "DELETE /music/api/session", "GET /music/api/me",
		"GET /music/api/posts", "POST /music/api/posts", "GET /music/api/posts/1", "DELETE /music/api/posts/1",
		"GET /music/api/posts/1/comments", "POST /music/api/posts/1/comments", "PUT /music/api/posts/1/like",
		"DELETE /music/api/posts/1/like", "GET /music/api/timelines/discovery", "GET /music/api/tags/jazz/posts",
		"GET /music/api/users", "GET /music/api/users/ann", "GET /music/api/users/ann/posts", "GET /music/api/friends",
		"PUT /music/api/friends/ann", "DELETE /music/api/friends/ann", "GET /music/api/friend-requests/incoming",
		"GET /music/api/friend-requests/outgoing", "PUT /music/api/friend-requests/outgoing/ann",
		"DELETE /music/api/friend-requests/outgoing/ann", "DELETE /music/api/friend-requests/incoming/ann",
	)
	contract.LacksRoutes(t, "PATCH /music/api/posts/1", "POST /music/api/posts/1/audio", "PUT /music/api/friend-requests/incoming/ann")

	m := apptest.One(t)
	apiVisitor(t, m).Served(contract, "/music/api/openapi.json")
}

// TestAPIPosts walks the posts: share, read, the timelines (everyone,
// discovery, a tag's, a person's) and their pages, comments, likes,
// delete.
func TestAPIPosts(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := apiUser(t, m, "ann"), apiUser(t, m, "bob")
		anon := apiVisitor(t, m)
		var me struct {
			Username string `json:"username"`
			Unread   int64  `json:"unread_notifications"`
		}
		ann.Call("GET", "/music/api/me", nil, 200, &me)
		if me.Username != "ann" {
			t.Errorf("me: %q; want ann", me.Username)
		}

		song := apiShare(ann, "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "  my <b>song</b> #Jazz  ", "")
		if song.Kind != "link" || song.Provider != "youtube" || !strings.Contains(song.Player, "dQw4w9WgXcQ") ||
			song.Comment != "my <b>song</b> #Jazz" || song.Visibility != "public" || song.Author.Username != "ann" || song.URL != "/music/p/"+itoa(song.ID) {
			t.Fatalf("shared %+v; want ann's public youtube link with the trimmed comment verbatim", song)
		}
		plain := apiShare(ann, "https://example.com/demo", "", "friends")
		if plain.Provider != "" || plain.Player != "" || plain.Link != "https://example.com/demo" {
			t.Errorf("a plain link: %+v; want no player", plain)
		}
		var got apiPostJSON
		anon.Call("GET", "/music/api/posts/"+itoa(song.ID), nil, 200, &got)
		if got.ID != song.ID || got.Liked != nil {
			t.Errorf("visitor got %+v; want the post without a liked mark", got)
		}

		// Comments, oldest first; on a friends-only post only for friends.
		var c struct {
			ID     int64  `json:"id"`
			PostID int64  `json:"post_id"`
			Body   string `json:"body"`
		}
		bob.Call("POST", "/music/api/posts/"+itoa(song.ID)+"/comments", map[string]string{"body": " nice one "}, 201, &c)
		if c.Body != "nice one" || c.PostID != song.ID || c.ID == 0 {
			t.Errorf("comment %+v; want the trimmed body on %d", c, song.ID)
		}
		ann.Call("POST", "/music/api/posts/"+itoa(song.ID)+"/comments", map[string]string{"body": "thanks"}, 201, nil)
		var cs apiCommentsJSON
		anon.Call("GET", "/music/api/posts/"+itoa(song.ID)+"/comments", nil, 200, &cs)
		if len(cs.Comments) != 2 || cs.Comments[0].Body != "nice one" || cs.Comments[1].Author.Username != "ann" || cs.Next != "" {
			t.Errorf("comments %+v; want bob's then ann's, one page", cs)
		}
		anon.Call("GET", "/music/api/posts/"+itoa(song.ID)+"/comments?after="+itoa(cs.Comments[0].ID), nil, 200, &cs)
		if len(cs.Comments) != 1 || cs.Comments[0].Body != "thanks" {
			t.Errorf("comments after the first %+v; want ann's", cs)
		}

		// Like twice counts once; unlike twice too.
		var like struct {
			ID    int64 `json:"id"`
			Liked bool  `json:"liked"`
			Likes int64 `json:"likes"`
		}
		for range 2 {
			bob.Call("PUT", "/music/api/posts/"+itoa(song.ID)+"/like", nil, 200, &like)
			if !like.Liked || like.Likes != 1 || like.ID != song.ID {
				t.Errorf("like: %+v; want liked, 1 like", like)
			}
		}
		bob.Call("GET", "/music/api/posts/"+itoa(song.ID), nil, 200, &got)
		if got.Liked == nil || !*got.Liked || got.Likes != 1 || got.Comments != 2 {
			t.Errorf("bob sees %+v; want liked by him, 1 like, 2 comments", got)
		}
		for range 2 {
			bob.Call("DELETE", "/music/api/posts/"+itoa(song.ID)+"/like", nil, 200, &like)
			if like.Liked || like.Likes != 0 {
				t.Errorf("unlike: %+v; want 0 likes", like)
			}
		}

		// The timelines, and their pages: 21 posts are two pages.
		var list apiPostsJSON
		ann.Call("GET", "/music/api/timelines/discovery", nil, 200, &list)
		if !slices.Equal(list.ids(), []int64{plain.ID, song.ID}) {
			t.Errorf("ann's discovery %v; want [%d %d]", list.ids(), plain.ID, song.ID)
		}
		bob.Call("GET", "/music/api/timelines/discovery", nil, 200, &list)
		if len(list.Posts) != 0 {
			t.Errorf("bob's discovery (no friends) %v; want empty", list.ids())
		}
		anon.Call("GET", "/music/api/tags/JAZZ/posts", nil, 200, &list)
		if !slices.Equal(list.ids(), []int64{song.ID}) {
			t.Errorf("#jazz %v; want [%d]", list.ids(), song.ID)
		}
		anon.Fails("GET", "/music/api/tags/no%20tag/posts", nil, 404)
		anon.Call("GET", "/music/api/users/ann/posts", nil, 200, &list)
		if !slices.Equal(list.ids(), []int64{song.ID}) {
			t.Errorf("ann's posts for a visitor %v; want the public one", list.ids())
		}
		cat := apiUser(t, m, "cat")
		for i := range 20 { // with ann's public song, 21 that bob sees (10 each: the posting limit's burst)
			apiShare([]*openapitest.Caller{bob, cat}[i%2], "https://example.com/"+strconv.Itoa(i), "", "public")
		}
		var all []int64
		next := "/music/api/posts"
		for pages := 0; next != ""; pages++ {
			if pages == 3 {
				t.Fatal("more than 2 pages of 21 posts")
			}
			var page apiPostsJSON
			bob.Call("GET", next, nil, 200, &page)
			all, next = append(all, page.ids()...), page.Next
		}
		if len(all) != 21 || all[20] != song.ID || !slices.IsSortedFunc(all, func(a, b int64) int { return int(b - a) }) {
			t.Errorf("everyone's posts, paged: %v; want 21, newest first, ending with %d", all, song.ID)
		}

		// Only the author (or a moderator) deletes.
		bob.Fails("DELETE", "/music/api/posts/"+itoa(song.ID), nil, 403)
		ann.Call("DELETE", "/music/api/posts/"+itoa(song.ID), nil, 204, nil)
		anon.Fails("GET", "/music/api/posts/"+itoa(song.ID), nil, 404)
		anon.Fails("GET", "/music/api/posts/"+itoa(song.ID)+"/comments", nil, 404)

		// Log out: the session is gone.
		ann.Call("DELETE", "/music/api/session", nil, 204, nil)
		if ann.HasCookie(auth.CookieName) {
			t.Error("the session cookie is still there after logging out")
		}
		ann.Refused("GET", "/music/api/me", nil, 401)
	})
}

// TestAPIFriends: ask, see the request both ways, decline, ask again,
// withdraw, ask again, accept, list, unfriend; and people search.
func TestAPIFriends(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := apiUser(t, m, "ann"), apiUser(t, m, "bob")
		apiUser(t, m, "annie")
		var p apiPersonJSON
		for range 2 {
			ann.Call("PUT", "/music/api/friend-requests/outgoing/bob", nil, 200, &p)
			if p.Username != "bob" || p.Relation == nil || !p.Relation.Requested || p.Relation.Friends {
				t.Fatalf("after asking: %+v; want requested", p)
			}
		}
		var links apiPeopleJSON
		ann.Call("GET", "/music/api/friend-requests/outgoing", nil, 200, &links)
		if !slices.Equal(links.names(), []string{"bob"}) {
			t.Errorf("ann's outgoing %v; want [bob]", links.names())
		}
		bob.Call("GET", "/music/api/friend-requests/incoming", nil, 200, &links)
		if !slices.Equal(links.names(), []string{"ann"}) {
			t.Errorf("bob's incoming %v; want [ann]", links.names())
		}
		bob.Call("DELETE", "/music/api/friend-requests/incoming/ann", nil, 200, &p)
		if p.Relation.AsksMe {
			t.Errorf("after declining: %+v", p.Relation)
		}
		bob.Fails("PUT", "/music/api/friends/ann", nil, 404) // nothing to accept
		ann.Call("PUT", "/music/api/friend-requests/outgoing/bob", nil, 200, &p)
		ann.Call("DELETE", "/music/api/friend-requests/outgoing/bob", nil, 200, &p)
		if p.Relation.Requested {
			t.Errorf("after withdrawing: %+v", p.Relation)
		}
		bob.Call("GET", "/music/api/friend-requests/incoming", nil, 200, &links)
		if len(links.People) != 0 {
			t.Errorf("bob's incoming after ann withdrew: %v", links.names())
		}
		ann.Call("PUT", "/music/api/friend-requests/outgoing/bob", nil, 200, &p)
		bob.Call("GET", "/music/api/users/ann", nil, 200, &p)
		if !p.Relation.AsksMe {
			t.Errorf("bob's view of ann: %+v; want asks_me", p.Relation)
		}
		for range 2 {
			bob.Call("PUT", "/music/api/friends/ann", nil, 200, &p)
			if !p.Relation.Friends || p.Friends != 1 {
				t.Errorf("after accepting: %+v; want friends", p)
			}
		}
		for _, c := range []*openapitest.Caller{ann, bob} {
			c.Call("GET", "/music/api/friends", nil, 200, &links)
			if len(links.People) != 1 || links.Next != "" {
				t.Errorf("%s's friends %v; want one", c.Name, links.names())
			}
		}
		ann.Fails("PUT", "/music/api/friend-requests/outgoing/ann", nil, 422)
		ann.Fails("PUT", "/music/api/friend-requests/outgoing/nobody", nil, 404)

		// A friend's friends-only post reaches discovery; unfriending hides it.
		priv := apiShare(bob, "https://soundcloud.com/bob/demo", "just us", "friends")
		var list apiPostsJSON
		ann.Call("GET", "/music/api/timelines/discovery", nil, 200, &list)
		if !slices.Equal(list.ids(), []int64{priv.ID}) {
			t.Errorf("ann's discovery %v; want bob's %d", list.ids(), priv.ID)
		}
		for range 2 {
			ann.Call("DELETE", "/music/api/friends/bob", nil, 200, &p)
			if p.Relation.Friends {
				t.Errorf("after unfriending: %+v", p.Relation)
			}
		}
		ann.Fails("GET", "/music/api/posts/"+itoa(priv.ID), nil, 404)

		// People search: by the start of the username, in name order.
		anon := apiVisitor(t, m)
		var found apiPeopleJSON
		anon.Call("GET", "/music/api/users?q=%40AN", nil, 200, &found)
		if !slices.Equal(found.names(), []string{"ann", "annie"}) || found.Next != "" {
			t.Errorf("search @AN: %v; want [ann annie]", found.names())
		}
		anon.Call("GET", "/music/api/users?q=zz", nil, 200, &found)
		if len(found.People) != 0 {
			t.Errorf("search zz: %v; want nobody", found.names())
		}
		p = apiPersonJSON{}
		anon.Call("GET", "/music/api/users/ann", nil, 200, &p)
		if p.Relation != nil {
			t.Errorf("a visitor's view of ann has a relation: %+v", p.Relation)
		}
	})
}

// TestAPIBadInput: unknown fields, wrong types, a comment too long, a bad
// cursor, no session, a cross-site write: each a clear 4xx problem, and
// nothing is written.
func TestAPIBadInput(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := apiUser(t, m, "ann")
		anon := apiVisitor(t, m)
		post := apiShare(ann, "https://example.com/song", "hi", "public")
		id := itoa(post.ID)
		posts, comments := count(t, m, "music_posts"), count(t, m, "music_comments")

		for _, c := range []struct {
			name, path string
			body       any
			off        bool
			field      string
		}{
			{"unknown field", "/music/api/posts", map[string]any{"url": "https://example.com/x", "mood": "happy"}, true, "mood"},
			{"wrong type", "/music/api/posts", map[string]any{"url": 5}, true, "url"},
			{"missing url", "/music/api/posts", map[string]any{"comment": "no link"}, true, "url"},
			{"not a web link", "/music/api/posts", map[string]any{"url": "javascript:alert(1)"}, false, "url"},
			{"bad visibility", "/music/api/posts", map[string]any{"url": "https://example.com/x", "visibility": "secret"}, true, "visibility"},
			{"comment too long", "/music/api/posts/" + id + "/comments", map[string]any{"body": strings.Repeat("é", 1001)}, true, "body"},
			{"blank comment", "/music/api/posts/" + id + "/comments", map[string]any{"body": " \n "}, false, "body"},
			{"comment of the wrong type", "/music/api/posts/" + id + "/comments", map[string]any{"body": []string{"x"}}, true, "body"},
			{"comment with an unknown field", "/music/api/posts/" + id + "/comments", map[string]any{"body": "x", "at": 3}, true, "at"},
		} {
			var p openapitest.Problem
			if c.off {
				p = ann.Refused("POST", c.path, c.body, 422)
			} else {
				p = ann.Fails("POST", c.path, c.body, 422)
			}
			if p.Fields[c.field] == "" {
				t.Errorf("%s: fields %v; want a message for %s", c.name, p.Fields, c.field)
			}
		}
		if p := ann.Refused("POST", "/music/api/posts", "{not json", 422); p.Detail == "" {
			t.Error("invalid JSON: no detail")
		}
		// 1,000 characters fit (and are then deleted with the post below).
		ann.Call("POST", "/music/api/posts/"+id+"/comments", map[string]any{"body": strings.Repeat("é", 1000)}, 201, nil)
		comments++

		// A malformed cursor is the client's error, named.
		for _, c := range []struct{ path, param string }{
			{"/music/api/posts?before=abc", "before"}, {"/music/api/posts?before=-1", "before"},
			{"/music/api/posts/" + id + "/comments?after=x", "after"}, {"/music/api/timelines/discovery?before=1.5", "before"},
			{"/music/api/tags/x/posts?before=x", "before"}, {"/music/api/users/ann/posts?before=x", "before"},
		} {
			p := ann.Refused("GET", c.path, nil, 400)
			if want := "The " + c.param + " parameter must be"; !strings.HasPrefix(p.Detail, want) {
				t.Errorf("GET %s: detail %q; want %q…", c.path, p.Detail, want)
			}
		}
		for _, path := range []string{"/music/api/friends?after=!!", "/music/api/friend-requests/incoming?after=bm90IGEgY3Vyc29y"} {
			if p := ann.Fails("GET", path, nil, 400); !strings.HasPrefix(p.Detail, "The after parameter must be") {
				t.Errorf("GET %s: detail %q", path, p.Detail)
			}
		}

		// 401 without a session.
		for _, c := range []struct{ method, path string }{
			{"GET", "/music/api/me"}, {"POST", "/music/api/posts"}, {"DELETE", "/music/api/posts/" + id},
			{"POST", "/music/api/posts/" + id + "/comments"}, {"PUT", "/music/api/posts/" + id + "/like"},
			{"GET", "/music/api/timelines/discovery"}, {"GET", "/music/api/friends"}, {"GET", "/music/api/friend-requests/incoming"},
			{"PUT", "/music/api/friend-requests/outgoing/ann"}, {"DELETE", "/music/api/friends/ann"},
		} {
			var body any
			if c.method == "POST" {
				body = map[string]string{"url": "https://example.com/y", "body": "hi"}
				if strings.HasSuffix(c.path, "/comments") {
					body = map[string]string{"body": "hi"}
				} else {
					body = map[string]string{"url": "https://example.com/y"}
				}
			}
			anon.Refused(c.method, c.path, body, 401)
		}
		anon.Fails("POST", "/music/api/session", map[string]string{"login": "ann", "password": "wrong password"}, 401)

		// A cross-site write is refused whatever the session.
		res, body := ann.Send("POST", "/music/api/posts", map[string]string{"url": "https://example.com/csrf"},
			http.Header{"Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}}, false)
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("a cross-site post: %d %s; want 403", res.StatusCode, body)
		}

		// 404 and 405.
		ann.Fails("GET", "/music/api/posts/999999", nil, 404)
		ann.Fails("POST", "/music/api/posts/999999/comments", map[string]string{"body": "x"}, 404)
		ann.Fails("PUT", "/music/api/posts/999999/like", nil, 404)
		ann.Refused("GET", "/music/api/posts/abc", nil, 404)
		ann.Refused("GET", "/music/api/nothing-here", nil, 404)
		res, _ = ann.Send("PATCH", "/music/api/posts/"+id, nil, nil, true)
		if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "DELETE, GET, HEAD" {
			t.Errorf("PATCH a post: %d, Allow %q; want 405, DELETE, GET, HEAD", res.StatusCode, res.Header.Get("Allow"))
		}

		if p, c := count(t, m, "music_posts"), count(t, m, "music_comments"); p != posts || c != comments {
			t.Errorf("after the refusals: %d posts, %d comments; want %d and %d", p, c, posts, comments)
		}
	})
}

// TestAPIVisitorCache: a visitor's first page of everyone's posts comes
// from the hot lane (no statement) with an ETag, answers 304, shows a new
// public post on the very next request, and never a friends-only one.
func TestAPIVisitorCache(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := apiUser(t, m, "ann")
		anon := apiVisitor(t, m)
		first := apiShare(ann, "https://example.com/first", "before the cache", "public")

		res, body := anon.Send("GET", "/music/api/posts", nil, nil, false)
		etag := res.Header.Get("ETag")
		if res.StatusCode != 200 || etag == "" || strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
			t.Fatalf("first GET: %d, ETag %q, Cache-Control %q; want 200, cacheable, with an ETag", res.StatusCode, etag, res.Header.Get("Cache-Control"))
		}
		if !strings.Contains(string(body), `"id":`+itoa(first.ID)) {
			t.Errorf("first page lacks post %d: %.300s", first.ID, body)
		}
		q0 := apptest.Queries(m)
		res, body = anon.Send("GET", "/music/api/posts", nil, http.Header{"If-None-Match": {etag}}, false)
		if res.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Fatalf("If-None-Match: %d with %d bytes; want 304, empty", res.StatusCode, len(body))
		}
		res, _ = anon.Send("GET", "/music/api/posts", nil, nil, false)
		if n := apptest.Queries(m) - q0; n != 0 || res.StatusCode != 200 {
			t.Errorf("the cached page: %d, %d statements; want 200 from the cache, none", res.StatusCode, n)
		}
		secret := apiShare(ann, "https://example.com/secret", "friends only", "friends")
		next := apiShare(ann, "https://example.com/next", "after the cache", "public")
		var page apiPostsJSON
		res, body = anon.Send("GET", "/music/api/posts", nil, http.Header{"If-None-Match": {etag}}, false)
		anon.Check(res, body, 200, &page)
		if !slices.Equal(page.ids(), []int64{next.ID, first.ID}) {
			t.Fatalf("after a public and a friends-only post: %v; want [%d %d] (not %d)", page.ids(), next.ID, first.ID, secret.ID)
		}
		if res.Header.Get("ETag") == etag {
			t.Error("the ETag did not change with the content")
		}
		// Signed-in callers get their own marks (and their own posts), not the visitors' page.
		var mine apiPostsJSON
		ann.Call("GET", "/music/api/posts", nil, 200, &mine)
		if len(mine.Posts) != 3 || mine.Posts[0].Liked == nil {
			t.Errorf("ann's page %v without liked marks or her friends-only post", mine.ids())
		}
	})
}

// apiPrivacy is TestPrivacyByRoute's API arm: ann's friends-only post priv
// (with bob's comment and like, tagged #tune #hushhush) reaches ann and
// bob through every API read, and cat (a stranger) and a visitor through
// none; cat cannot act on it either. Each logs in with the password
// "password-" and their name.
func apiPrivacy(t *testing.T, m *app.Main, priv string) {
	t.Helper()
	secret := []string{"just friends", "secret-demo", "whispered comment", `"url":"/music/p/` + priv + `"`}
	reads := []string{"/music/api/posts", "/music/api/tags/tune/posts", "/music/api/tags/hushhush/posts", "/music/api/users/ann/posts",
		"/music/api/users?q=ann", "/music/api/posts/" + priv, "/music/api/posts/" + priv + "/comments"}
	for _, c := range []struct {
		name string
		sees bool
	}{{"ann", true}, {"bob", true}, {"cat", false}, {"", false}} {
		who, paths := apiVisitor(t, m), reads
		if c.name != "" {
			who = apiLogin(t, m, c.name, "password-"+c.name)
			paths = append(slices.Clone(reads), "/music/api/timelines/discovery")
		}
		var all strings.Builder
		for _, path := range paths {
			res, body := who.Send("GET", path, nil, nil, false)
			if res.StatusCode != 200 && !(strings.Contains(path, "/posts/"+priv) && !c.sees && res.StatusCode == 404) {
				t.Errorf("%q: GET %s: %d", c.name, path, res.StatusCode)
			}
			all.Write(body)
		}
		for _, s := range secret {
			if got := strings.Contains(all.String(), s); got != c.sees {
				t.Errorf("%q sees %q through the API: %v; want %v", c.name, s, got, c.sees)
			}
		}
		if !strings.Contains(all.String(), "everyone's song") {
			t.Errorf("%q does not see the public post through the API", c.name)
		}
		if c.name == "cat" { // not found to act on, as if absent
			who.Fails("POST", "/music/api/posts/"+priv+"/comments", map[string]string{"body": "x"}, 404)
			who.Fails("PUT", "/music/api/posts/"+priv+"/like", nil, 404)
			who.Fails("DELETE", "/music/api/posts/"+priv, nil, 404)
		}
	}
}
