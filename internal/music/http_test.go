package music_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/music"
)

// person is someone using the site without JavaScript.
type person struct {
	*apptest.Web
	t    *testing.T
	name string
}

func visitorOf(t *testing.T, m *app.Main) *person { return &person{Web: apptest.NewWeb(t, m), t: t} }

// signUp creates an account and signs it in.
func signUp(t *testing.T, m *app.Main, name string) *person {
	t.Helper()
	m.Auth.SetLimits(auth.Limits{})
	if _, err := m.Auth.Create(context.Background(), auth.Signup{Username: name, Email: name + "@example.com", Password: "password-" + name}); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	p := visitorOf(t, m)
	p.name = name
	res, body := p.Post("/account/login", url.Values{"login": {name}, "password": {"password-" + name}})
	apptest.WantStatus(t, res, body, http.StatusSeeOther)
	return p
}

var postIDs = regexp.MustCompile(`<article class="post[^"]*" id="p-(\d+)"`)

// share posts a link and returns the new post's id (the newest on my page).
func (p *person) share(link, comment, vis string) string {
	p.t.Helper()
	res, body := p.Post("/music/posts", url.Values{"url": {link}, "comment": {comment}, "visibility": {vis}})
	apptest.WantStatus(p.t, res, body, http.StatusSeeOther)
	_, page := p.Get("/music/u/" + p.name)
	m := postIDs.FindStringSubmatch(page)
	if m == nil {
		p.t.Fatalf("no post on my page after sharing %q", link)
	}
	return m[1]
}

// readAll GETs routes as p (named name) and returns the pages together:
// each must be a 200 (hidden, a post p may not see: a 404 then), and
// hold each of secret if sees, none of them else.
func (p *person) readAll(name string, routes []string, hidden string, sees bool, secret []string) string {
	p.t.Helper()
	var all strings.Builder
	for _, path := range routes {
		res, body := p.Get(path)
		if res.StatusCode != 200 && !(path == hidden && !sees && res.StatusCode == 404) {
			p.t.Errorf("%s: GET %s: %d", name, path, res.StatusCode)
		}
		all.WriteString(body)
	}
	for _, s := range secret {
		if got := strings.Contains(all.String(), s); got != sees {
			p.t.Errorf("%s sees %q: %v; want %v", name, s, got, sees)
		}
	}
	return all.String()
}

// statements is a counter of the statements p's GET of path costs.
func (p *person) statements(m *app.Main, path string) func() int64 {
	return func() int64 {
		p.t.Helper()
		p.Get("/") // the session and user come from memory for every count
		q0 := apptest.Queries(m)
		res, body := p.Get(path)
		apptest.WantStatus(p.t, res, body, 200)
		return apptest.Queries(m) - q0
	}
}

// befriend makes a and b friends through the pages.
func befriend(t *testing.T, a, b *person) {
	t.Helper()
	res, body := a.Post("/music/u/"+b.name+"/befriend", nil)
	apptest.WantStatus(t, res, body, http.StatusSeeOther)
	res, body = b.Post("/music/u/"+a.name+"/accept", nil)
	apptest.WantStatus(t, res, body, http.StatusSeeOther)
}

func TestShareAndFormErrors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := signUp(t, m, "ann")
		// A bad link: the form again, with what was typed and the message.
		res, body := ann.Post("/music/posts", url.Values{"url": {"javascript:alert(1)"}, "comment": {"my <b>song</b>"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "Only web links") || !strings.Contains(body, "my &lt;b&gt;song&lt;/b&gt;") || !strings.Contains(body, `id="url-error"`) {
			t.Fatalf("the form was not shown again with the message and the text:\n%s", body)
		}
		id := ann.share("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "Hello <script>x</script> #Jazz", "public")
		_, page := ann.Get("/music/")
		if !strings.Contains(page, `data-src="https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ"`) || !strings.Contains(page, `href="/music/tags/jazz"`) ||
			strings.Contains(page, "<script>x") || !strings.Contains(page, `id="p-`+id+`"`) {
			t.Fatalf("discovery does not show the post as a player with its tag, escaped:\n%s", page)
		}
		// A visitor is sent to sign in before posting; nothing is written.
		v := visitorOf(t, m)
		res, body = v.Post("/music/posts", url.Values{"url": {"https://example.com"}})
		if loc := apptest.WantRedirect(t, res, body); !strings.HasPrefix(loc, "/account/login") {
			t.Fatalf("a visitor's post went to %q; want the login", loc)
		}
		// Deleting asks first (a page with the form), then deletes.
		res, body = ann.Get("/music/p/" + id + "/delete")
		apptest.WantStatus(t, res, body, 200)
		if !strings.Contains(body, `action="/music/p/`+id+`/delete"`) || !strings.Contains(body, "cannot be undone") {
			t.Fatalf("the delete page does not ask:\n%s", body)
		}
		res, body = ann.Post("/music/p/"+id+"/delete", nil)
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		res, body = ann.Get("/music/p/" + id)
		apptest.WantStatus(t, res, body, 404)
	})
}

// TestPrivacyByRoute: a friends-only post, its comment and its counts show
// to its author and their friend on every page, and to a stranger and a
// visitor on none (pages, tag pages, what's hot, search, cached pages).
func TestPrivacyByRoute(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, cat := signUp(t, m, "ann"), signUp(t, m, "bob"), signUp(t, m, "cat")
		vis := visitorOf(t, m)
		befriend(t, ann, bob)
		pub := ann.share("https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", "everyone's song #tune", "public")
		priv := ann.share("https://soundcloud.com/ann/secret-demo", "just friends #tune #hushhush", "friends")
		res, body := bob.Post("/music/p/"+priv+"/comments", url.Values{"body": {"whispered comment"}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		res, body = bob.Post("/music/p/"+priv+"/like", url.Values{"on": {"true"}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		// The visitors' pages are cached first, before the friends read.
		for _, path := range []string{"/music/", "/music/tags/tune", "/music/u/ann", "/music/hot"} {
			vis.Get(path)
		}
		secret := []string{"just friends", "secret-demo", "whispered comment", `id="p-` + priv + `"`}
		routes := []string{"/music/", "/music/everyone", "/music/tags/tune", "/music/tags/hushhush", "/music/u/ann", "/music/hot",
			"/music/p/" + priv, "/music/people?q=ann", "/music/people/suggest?q=an", "/music/u/ann?before=999999999"}
		for _, c := range []struct {
			who  *person
			name string
			sees bool
		}{{ann, "author", true}, {bob, "friend", true}, {cat, "stranger", false}, {vis, "visitor", false}} {
			all := c.who.readAll(c.name, routes, "/music/p/"+priv, c.sees, secret)
			if !strings.Contains(all, "everyone&#39;s song") {
				t.Errorf("%s does not see the public post", c.name)
			}
		}
		// The stranger cannot act on it either: not found, as if absent.
		for _, path := range []string{"/comments", "/like", "/repost", "/report"} {
			res, body := cat.Post("/music/p/"+priv+path, url.Values{"body": {"x"}, "on": {"true"}, "reason": {"x"}})
			apptest.WantStatus(t, res, body, 404)
		}
		// The stranger is notified of nothing about it; the author is.
		_, page := cat.Get("/music/notifications")
		if strings.Contains(page, "whispered") || strings.Contains(page, "just friends") {
			t.Errorf("the stranger's notifications show the friends-only post")
		}
		_, page = ann.Get("/music/notifications")
		if !strings.Contains(page, "commented on your post") || !strings.Contains(page, "liked your post") {
			t.Errorf("ann's notifications lack bob's comment and like:\n%s", page)
		}
		_ = pub
	})
}

// TestDiscoveryStatements: discovery costs the same number of statements
// with 2 friends' posts as with 20 of 6 friends, with likes and comments.
func TestDiscoveryStatements(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := signUp(t, m, "ann"), signUp(t, m, "bob")
		befriend(t, ann, bob)
		bob.share("https://example.com/1", "one #a", "public")
		two := bob.share("https://example.com/2", "two", "friends")
		res, body := ann.Post("/music/p/"+two+"/comments", url.Values{"body": {"first"}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		count := ann.statements(m, "/music/?before=999999999")
		small := count()
		for i := range 6 {
			f := signUp(t, m, fmt.Sprint("f", i))
			befriend(t, ann, f)
			for j := range 3 {
				id := f.share(fmt.Sprintf("https://example.com/%d/%d", i, j), "song #b", []string{"public", "friends"}[j%2])
				res, body := ann.Post("/music/p/"+id+"/like", url.Values{"on": {"true"}})
				apptest.WantStatus(t, res, body, http.StatusSeeOther)
				for k := range 4 {
					res, body = f.Post("/music/p/"+id+"/comments", url.Values{"body": {fmt.Sprint("c", k)}})
					apptest.WantStatus(t, res, body, http.StatusSeeOther)
				}
			}
		}
		if big := count(); big != small {
			t.Fatalf("discovery: %d statements with 2 posts, %d with 20; want the same", small, big)
		}
		t.Logf("discovery costs %d statements", small)
	})
}

// TestUnfriendAndBlockAskFirst: unfriending and blocking show a page that
// asks; only its form (confirm=1) does it.
func TestUnfriendAndBlockAskFirst(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := signUp(t, m, "ann"), signUp(t, m, "bob")
		befriend(t, ann, bob)
		for _, verb := range []string{"unfriend", "block"} {
			res, body := ann.Post("/music/u/bob/"+verb, nil)
			apptest.WantStatus(t, res, body, 200)
			if !strings.Contains(body, `name="confirm" value="1"`) {
				t.Fatalf("%s did not ask first:\n%s", verb, body)
			}
			if _, page := ann.Get("/music/friends"); !strings.Contains(page, `href="/music/u/bob"`) {
				t.Fatalf("asking to %s ended the friendship", verb)
			}
		}
		res, body := ann.Post("/music/u/bob/unfriend", url.Values{"confirm": {"1"}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		if _, page := ann.Get("/music/friends"); strings.Contains(page, `href="/music/u/bob"`) {
			t.Fatal("bob is still ann's friend after unfriending")
		}
		res, body = ann.Post("/music/u/bob/nonsense", nil)
		apptest.WantStatus(t, res, body, 404)
	})
}

// TestVisitorPagesCached: a visitor's page is served from the cache (no
// statement) until a public change, which shows at once.
func TestVisitorPagesCached(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := signUp(t, m, "ann")
		ann.share("https://example.com/first", "first #x", "public")
		vis := visitorOf(t, m)
		for _, path := range []string{"/music/", "/music/tags/x", "/music/u/ann"} {
			res, body := vis.Get(path)
			apptest.WantStatus(t, res, body, 200)
			q0 := apptest.Queries(m)
			res, body = vis.Get(path)
			apptest.WantStatus(t, res, body, 200)
			if n := apptest.Queries(m) - q0; n != 0 {
				t.Errorf("%s: a cached visitor's page ran %d statements; want none", path, n)
			}
		}
		ann.share("https://example.com/second", "second #x", "public")
		ann.share("https://example.com/third", "third, friends only #x", "friends")
		for _, path := range []string{"/music/", "/music/tags/x", "/music/u/ann"} {
			_, body := vis.Get(path)
			if !strings.Contains(body, "second") || strings.Contains(body, "third") {
				t.Errorf("%s: after a new public and a friends-only post, the visitor's page is stale or leaks", path)
			}
		}
	})
}

// TestModeratorRemovesReported: a report reaches the moderators' page, where
// a moderator removes the post; others may not read that page.
func TestModeratorRemovesReported(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, mod := signUp(t, m, "ann"), signUp(t, m, "bob"), signUp(t, m, "mod")
		if err := m.Auth.Grant(context.Background(), "mod", auth.Role{App: "music", Name: music.RoleModerator}); err != nil {
			t.Fatal(err)
		}
		id := ann.share("https://example.com/spam", "buy now", "public")
		res, body := bob.Post("/music/p/"+id+"/report", url.Values{"reason": {""}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		res, body = bob.Post("/music/p/"+id+"/report", url.Values{"reason": {"spam"}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		res, body = bob.Get("/music/reports")
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		_, body = mod.Get("/music/reports")
		if !strings.Contains(body, "buy now") || !strings.Contains(body, "spam") {
			t.Fatalf("the moderators' page lacks the report:\n%s", body)
		}
		res, body = mod.Post("/music/p/"+id+"/delete", nil)
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		res, body = ann.Get("/music/p/" + id)
		apptest.WantStatus(t, res, body, 404)
	})
}
