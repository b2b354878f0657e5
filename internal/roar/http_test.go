package roar_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/roar"
)

// browser is one person using the site without JavaScript: a cookie jar
// (apptest.Web, with this file's short names).
type browser struct {
	*apptest.Web
	t    *testing.T
	c    *http.Client
	base string
}

func newBrowser(t *testing.T, m *app.Main) *browser {
	w := apptest.NewWeb(t, m)
	return &browser{Web: w, t: t, c: w.Client, base: w.Base}
}

func (b *browser) do(method, path string, body io.Reader, header http.Header) (*http.Response, string) {
	b.t.Helper()
	return b.Do(method, path, body, header)
}

func (b *browser) get(path string) (*http.Response, string) { b.t.Helper(); return b.Get(path) }

func (b *browser) post(path string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	return b.Post(path, form)
}

// user creates an account and returns a browser signed in as it.
func user(t *testing.T, m *app.Main, name string) *browser {
	t.Helper()
	m.Auth.SetLimits(auth.Limits{}) // tests sign many users in from one address
	if _, err := m.Auth.Create(context.Background(), auth.Signup{Username: name, Email: name + "@example.com", Password: "password-" + name}); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	b := newBrowser(t, m)
	res, body := b.post("/account/login", url.Values{"login": {name}, "password": {"password-" + name}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("login %s: got %d; want 303\n%s", name, res.StatusCode, body)
	}
	return b
}

var roarIDs = regexp.MustCompile(`<article class="roar[^"]*" id="r-(\d+)"`)

// roar posts body and returns the new roar's id (the newest on the page).
func (b *browser) roar(body string, replyTo string) string {
	b.t.Helper()
	form := url.Values{"body": {body}}
	if replyTo != "" {
		form.Set("reply_to", replyTo)
	}
	res, page := b.post("/roar/roars", form)
	if res.StatusCode != http.StatusSeeOther {
		b.t.Fatalf("post %q: got %d; want 303\n%s", body, res.StatusCode, page)
	}
	_, page = b.get("/roar/u/" + b.me())
	m := roarIDs.FindStringSubmatch(page)
	if m == nil {
		b.t.Fatalf("no roar on my profile after posting %q", body)
	}
	return m[1]
}

func (b *browser) me() string {
	u, _ := url.Parse(b.base)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == "tutti_user" {
			return c.Value
		}
	}
	b.t.Fatal("not signed in")
	return ""
}

func wantStatus(t *testing.T, res *http.Response, want int, what string) {
	t.Helper()
	if res.StatusCode != want {
		t.Fatalf("%s: got %d; want %d", what, res.StatusCode, want)
	}
}

func TestPostReadLikeReplyAndNotify(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := user(t, m, "ann"), user(t, m, "bob")
		id := ann.roar("Hello <script>alert(1)</script> <img src=x onerror=alert(2)> #Jazz @bob", "")

		// Everyone sees it, as text: no tag of ours comes from the roar.
		visitor := newBrowser(t, m)
		res, page := visitor.get("/roar/")
		wantStatus(t, res, 200, "public timeline")
		if strings.Contains(page, "<script>alert") || strings.Contains(page, "<img src=x") {
			t.Fatal("the roar's HTML was not escaped")
		}
		if !strings.Contains(page, "&lt;script&gt;alert(1)&lt;/script&gt;") || !strings.Contains(page, `href="/roar/tags/jazz"`) ||
			!strings.Contains(page, `href="/roar/u/bob"`) {
			t.Fatalf("roar not shown as text with links:\n%s", page)
		}

		// Like twice counts once; unlike brings it back.
		for range 2 {
			res, body := bob.do("POST", "/roar/r/"+id+"/like", strings.NewReader("on=true"),
				http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}})
			wantStatus(t, res, 200, "like")
			if !strings.Contains(body, `"likes":1`) {
				t.Fatalf("like: got %s; want likes 1", body)
			}
		}
		res, body := bob.do("POST", "/roar/r/"+id+"/like", strings.NewReader("on=false"),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}})
		if res.StatusCode != 200 || !strings.Contains(body, `"likes":0`) {
			t.Fatalf("unlike: got %d %s; want likes 0", res.StatusCode, body)
		}
		bob.post("/roar/r/"+id+"/like", url.Values{"on": {"true"}})

		// A reply lands in the thread and notifies ann; the mention notified bob.
		reply := bob.roar("@ann nice", id)
		_, page = visitor.get("/roar/r/" + id)
		if !strings.Contains(page, `id="r-`+reply+`"`) || !strings.Contains(page, "1 reply") {
			t.Fatalf("thread does not show the reply:\n%s", page)
		}
		_, page = ann.get("/roar/")
		if !strings.Contains(page, `id="unseen">2<`) {
			t.Fatalf("ann should have 2 unseen notifications (like, reply):\n%s", page)
		}
		_, page = ann.get("/roar/notifications")
		for _, want := range []string{"liked your roar", "replied to you"} {
			if !strings.Contains(page, want) {
				t.Errorf("ann's notifications lack %q", want)
			}
		}
		_, page = ann.get("/roar/")
		if !strings.Contains(page, `id="unseen">2<`) {
			t.Error("a GET of the notifications marked them seen")
		}
		ann.post("/roar/notifications/seen", url.Values{"up_to": {"999999"}})
		_, page = ann.get("/roar/")
		if !strings.Contains(page, `id="unseen" hidden>0<`) {
			t.Error("notifications still unseen after marking them seen")
		}
		_, page = bob.get("/roar/notifications")
		if !strings.Contains(page, "mentioned you") {
			t.Error("bob was not notified of the mention")
		}

		// Hashtag page.
		_, page = visitor.get("/roar/tags/jazz")
		if !strings.Contains(page, `id="r-`+id+`"`) {
			t.Error("hashtag page lacks the roar")
		}
		res, _ = visitor.get("/roar/tags/no%20such")
		wantStatus(t, res, 404, "bad tag")
	})
}

func TestBadInputWritesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := user(t, m, "ann")
		for _, tc := range []struct{ body, msg string }{
			{"   \n ", "empty roar"},
			{strings.Repeat("é", 281), "at most 280 characters"},
			{"txt\u202eexe.roar", "changes the direction of text (U+202E)"},
		} {
			res, page := ann.post("/roar/roars", url.Values{"body": {tc.body}})
			wantStatus(t, res, 422, "bad roar")
			if !strings.Contains(page, tc.msg) {
				t.Errorf("422 page lacks %q", tc.msg)
			}
		}
		// The typed text is kept.
		long := strings.Repeat("x", 281)
		_, page := ann.post("/roar/roars", url.Values{"body": {long}})
		if !strings.Contains(page, ">"+long+"</textarea>") {
			t.Error("the form did not keep the text")
		}
		// 280 code points (560 bytes) is fine.
		ann.roar(strings.Repeat("é", 280), "")
		_, page = ann.get("/roar/u/ann")
		if n := len(roarIDs.FindAllString(page, -1)); n != 1 {
			t.Fatalf("got %d roars; want 1 (bad input wrote something)", n)
		}
		for _, path := range []string{"/roar/r/abc", "/roar/r/0", "/roar/r/999999", "/roar/u/nobody"} {
			res, _ := ann.get(path)
			wantStatus(t, res, 404, path)
		}
		res, _ := ann.post("/roar/r/abc/like", url.Values{"on": {"true"}})
		wantStatus(t, res, 404, "like of a bad id")
		res, _ = ann.post("/roar/r/1/like", url.Values{"on": {"maybe"}})
		wantStatus(t, res, 422, "like with a bad flag")
		res, _ = ann.do("DELETE", "/roar/roars", nil, nil)
		wantStatus(t, res, 405, "wrong method")
		res, _ = ann.get("/roar/?before=x")
		wantStatus(t, res, 400, "bad cursor")
	})
}

func TestOnlyTheAuthorOrAModeratorRemoves(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, mod := user(t, m, "ann"), user(t, m, "bob"), user(t, m, "mod")
		if err := m.Auth.Grant(context.Background(), "mod", auth.Role{App: "roar", Name: "moderator"}); err != nil {
			t.Fatal(err)
		}
		id := ann.roar("mine", "")
		res, _ := bob.post("/roar/r/"+id+"/delete", nil)
		wantStatus(t, res, 403, "bob deletes ann's roar")
		res, _ = newBrowser(t, m).post("/roar/r/"+id+"/delete", nil)
		if res.StatusCode != 303 || !strings.HasPrefix(res.Header.Get("Location"), "/account/login") {
			t.Fatalf("a visitor's delete: got %d to %q; want a redirect to log in", res.StatusCode, res.Header.Get("Location"))
		}
		if res, _ := bob.get("/roar/r/" + id); res.StatusCode != 200 {
			t.Fatal("the roar is gone after refused deletes")
		}

		// bob reports it; the moderator sees the report and removes the roar.
		res, page := bob.post("/roar/r/"+id+"/report", url.Values{"reason": {""}})
		wantStatus(t, res, 422, "empty report")
		if !strings.Contains(page, "Say what is wrong") {
			t.Error("no message for an empty report")
		}
		res, _ = bob.post("/roar/r/"+id+"/report", url.Values{"reason": {"spam"}})
		wantStatus(t, res, 303, "report")
		if _, page := bob.get(res.Header.Get("Location")); !strings.Contains(page, "the moderators will look at this roar") {
			t.Error("no thanks after a report")
		}
		res, _ = bob.get("/roar/reports")
		wantStatus(t, res, 403, "reports page for a non-moderator")
		_, page = mod.get("/roar/reports")
		if !strings.Contains(page, `id="r-`+id+`"`) || !strings.Contains(page, "spam") {
			t.Fatalf("the moderator does not see the report:\n%s", page)
		}
		res, _ = mod.post("/roar/r/"+id+"/delete", nil)
		wantStatus(t, res, 303, "moderator removes")
		res, _ = ann.get("/roar/r/" + id)
		wantStatus(t, res, 404, "removed roar")

		// The author deletes their own.
		id2 := ann.roar("second", "")
		res, _ = ann.post("/roar/r/"+id2+"/delete", nil)
		wantStatus(t, res, 303, "author deletes")
		res, _ = ann.get("/roar/r/" + id2)
		wantStatus(t, res, 404, "deleted roar")
	})
}

func TestFollowHomeBlockMute(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, cat := user(t, m, "ann"), user(t, m, "bob"), user(t, m, "cat")
		bobs := bob.roar("from bob", "")
		cats := cat.roar("from cat", "")
		res, _ := ann.post("/roar/u/bob/follow", url.Values{"on": {"true"}})
		wantStatus(t, res, 303, "follow")
		_, home := ann.get("/roar/home")
		if !strings.Contains(home, `id="r-`+bobs+`"`) || strings.Contains(home, `id="r-`+cats+`"`) {
			t.Fatal("home should show bob's roar and not cat's")
		}
		_, page := bob.get("/roar/notifications")
		if !strings.Contains(page, "followed you") {
			t.Error("bob was not told of the follow")
		}
		// Mute hides cat on the public timeline for ann only.
		ann.post("/roar/u/cat/mute", url.Values{"on": {"true"}})
		_, page = ann.get("/roar/")
		if strings.Contains(page, `id="r-`+cats+`"`) {
			t.Error("muted author still shown")
		}
		_, page = bob.get("/roar/")
		if !strings.Contains(page, `id="r-`+cats+`"`) {
			t.Error("ann's mute hid cat from bob")
		}
		// Blocking bob ends the follow both ways, hides him, and bob can no
		// longer like or reply to ann's roars.
		anns := ann.roar("from ann", "")
		ann.post("/roar/u/bob/block", url.Values{"on": {"true"}})
		_, home = ann.get("/roar/home")
		if strings.Contains(home, `id="r-`+bobs+`"`) {
			t.Error("blocked user's roar on home")
		}
		res, _ = bob.post("/roar/r/"+anns+"/like", url.Values{"on": {"true"}})
		wantStatus(t, res, 403, "like across a block")
		res, _ = bob.post("/roar/roars", url.Values{"body": {"hi"}, "reply_to": {anns}})
		wantStatus(t, res, 403, "reply across a block")
		res, _ = bob.post("/roar/u/ann/follow", url.Values{"on": {"true"}})
		wantStatus(t, res, 403, "follow across a block")
		res, _ = ann.post("/roar/u/ann/follow", url.Values{"on": {"true"}})
		wantStatus(t, res, 422, "follow myself")
	})
}

func TestSecurity(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := user(t, m, "ann")
		// A cross-origin POST is refused, and writes nothing.
		res, _ := ann.do("POST", "/roar/roars", strings.NewReader("body=csrf"), http.Header{
			"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}, "Origin": {"https://evil.example"}})
		wantStatus(t, res, 403, "cross-origin post")
		_, page := ann.get("/roar/u/ann")
		if strings.Contains(page, "csrf") {
			t.Fatal("the cross-origin roar was written")
		}
		// Posting is rate-limited: bursts of 10, then 429 with Retry-After.
		var limited *http.Response
		for i := range 15 {
			res, _ := ann.post("/roar/roars", url.Values{"body": {fmt.Sprint("roar ", i)}})
			if res.StatusCode == 429 {
				limited = res
				break
			}
			wantStatus(t, res, 303, "post within the limit")
		}
		if limited == nil {
			t.Fatal("15 roars in a row were never limited")
		}
		if ra := limited.Header.Get("Retry-After"); ra == "" || ra == "0" {
			t.Errorf("429 without a useful Retry-After: %q", ra)
		}
		// The pages carry the strict CSP.
		res, _ = ann.get("/roar/")
		if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("CSP = %q", csp)
		}
	})
}

// TestVisitorPageCachedAndFresh: the public timeline is served from the cache
// with an ETag, and a new roar is visible on the very next request.
func TestVisitorPageCachedAndFresh(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := user(t, m, "ann")
		ann.roar("first", "")
		v := newBrowser(t, m)
		res, _ := v.get("/roar/")
		etag := res.Header.Get("ETag")
		if etag == "" {
			t.Fatal("no ETag on the visitor's timeline")
		}
		v.get("/roar/api/roars")
		q0 := apptest.Queries(m)
		res, _ = v.do("GET", "/roar/", nil, http.Header{"If-None-Match": {etag}})
		wantStatus(t, res, 304, "conditional GET")
		v.get("/roar/api/roars")
		res, _ = v.get("/roar/")
		// No statement: with SQLite the version is in memory; with
		// PostgreSQL the version read for the first view holds until a
		// change is heard of.
		if n := apptest.Queries(m) - q0; n != 0 {
			t.Errorf("three cached views ran %d statements; want none", n)
		}
		id := ann.roar("second", "")
		res, page := v.do("GET", "/roar/", nil, http.Header{"If-None-Match": {etag}})
		wantStatus(t, res, 200, "after a new roar")
		if !strings.Contains(page, `id="r-`+id+`"`) {
			t.Fatal("the new roar is not on the next page view")
		}
	})
}

// A roar posted on another instance (a second roar.App on the same database
// and bus) reaches this instance's visitors, although their cached page no
// longer reads the version per request on PostgreSQL: the bus tells of the
// change (and a version is trusted for a second at most).
func TestVisitorsSeeOtherInstancesRoars(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		if m.DB.Dialect != db.Postgres {
			t.Skip("one process owns a SQLite database")
		}
		ctx := context.Background()
		// The other instance: the cluster's second one, else a second roar
		// on this one's database and bus.
		var other *roar.App
		if peers := apptest.Instances(m); len(peers) > 1 {
			other = apptest.AppOf[*roar.App](t, peers[1])
		} else {
			assets, err := roar.Module().Assets()
			if err != nil {
				t.Fatal(err)
			}
			o, err := roar.New(ctx, roar.Deps{DB: m.DB, Cache: cache.New(cache.NewLocal(8 << 20)), Site: m.Site, Log: m.Log, Bus: m.Bus, Auth: m.Auth, Assets: assets})
			if err != nil {
				t.Fatal(err)
			}
			defer o.Close()
			other = o
		}
		user(t, m, "ann")
		ann, err := m.Auth.ByUsername(ctx, "ann")
		if err != nil {
			t.Fatal(err)
		}
		v := newBrowser(t, m)
		v.get("/roar/api/roars") // cached, and the version with it
		r, err := other.Service().Post(ctx, ann, "from the other instance", 0)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`"id":%d`, r.ID)
		deadline := time.Now().Add(3 * time.Second)
		for {
			_, body := v.get("/roar/api/roars")
			if strings.Contains(body, want) {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the other instance's roar never reached this one's visitors")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// streams is the count of roar's live streams open on m's instances.
func streams(t testing.TB, m *app.Main) int {
	t.Helper()
	n := 0
	for _, i := range apptest.Instances(m) {
		n += apptest.AppOf[*roar.App](t, i).Streams()
	}
	return n
}

// TestNoNPlusOne: a signed-in timeline costs the same number of statements
// with 3 roars as with 60, by several authors, with likes and reposts.
func TestNoNPlusOne(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := user(t, m, "ann"), user(t, m, "bob")
		count := func() int64 { return statements(t, m, ann, "/roar/?before=1000000") }
		for i := range 3 {
			bob.roar(fmt.Sprint("b", i), "")
		}
		small := count()
		var writers []*browser
		for i := range 6 {
			writers = append(writers, user(t, m, fmt.Sprint("w", i)))
		}
		for _, w := range writers {
			for j := range 9 {
				id := w.roar(fmt.Sprint("r", j), "")
				ann.post("/roar/r/"+id+"/like", url.Values{"on": {"true"}})
			}
		}
		if big := count(); big != small {
			t.Fatalf("statements: %d with 3 roars, %d with 60; want the same", small, big)
		}
	})
}

// statements is how many statements b's page at path costs.
func statements(t *testing.T, m *app.Main, b *browser, path string) int64 {
	t.Helper()
	// Another page first: in embedded mode the session and the user then
	// come from memory for every count (auth's memo).
	b.get("/")
	q0 := apptest.Queries(m)
	res, _ := b.get(path)
	wantStatus(t, res, 200, path)
	return apptest.Queries(m) - q0
}

// TestConcurrentPostsAllLand: many concurrent posts are group-committed
// (fewer transactions than posts) and every one lands.
func TestConcurrentPostsAllLand(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		const users, each = 20, 8
		var bs []*browser
		for i := range users {
			bs = append(bs, user(t, m, fmt.Sprint("u", i)))
		}
		writeStats := func() (batches, writes int64) { // every instance's
			for _, i := range apptest.Instances(m) {
				b, w := apptest.AppOf[*roar.App](t, i).WriteStats()
				batches, writes = batches+b, writes+w
			}
			return batches, writes
		}
		b0, w0 := writeStats()
		var wg sync.WaitGroup
		for _, b := range bs {
			for j := range each {
				wg.Add(1)
				go func() {
					defer wg.Done()
					res, _ := b.post("/roar/roars", url.Values{"body": {fmt.Sprint("c", j)}})
					if res.StatusCode != 303 {
						t.Errorf("post: %d", res.StatusCode)
					}
				}()
			}
		}
		wg.Wait()
		for _, b := range bs {
			// Connections dialled but never used count as busy for 5 s at shutdown.
			b.c.CloseIdleConnections()
		}
		batches, writes := writeStats()
		batches, writes = batches-b0, writes-w0
		var n int
		if err := m.DB.QueryRow(context.Background(), "SELECT count(*) FROM roars").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != users*each || writes != users*each {
			t.Fatalf("got %d roars and %d writes; want %d", n, writes, users*each)
		}
		t.Logf("%d writes in %d transactions", writes, batches)
	})
}

// TestStreamDeliversAndCatchesUp: a roar posted reaches an open stream, and a
// stream reopened with Last-Event-ID gets what it missed.
func TestStreamDeliversAndCatchesUp(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := user(t, m, "ann")
		first := ann.roar("before the stream", "")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		events := openStream(t, ctx, m.URL()+"/roar/stream", "")
		// Wait for the stream to be registered before posting.
		waitFor(t, func() bool { return streams(t, m) == 1 })
		id := ann.roar("live!", "")
		e := <-events
		if e.id == first { // the bus is asynchronous: its event may come after the stream opened
			e = <-events
		}
		if e.id != id || e.event != "roar" || !strings.Contains(e.data, "live!") {
			t.Fatalf("got event %+v; want the roar %s", e, id)
		}
		// Pages get the rendered article, unescaped JSON, without the API's copy.
		if !strings.Contains(e.data, `"html":"<article`) || strings.Contains(e.data, `"roar":`) {
			t.Fatalf("page stream event %s; want the article and no roar object", e.data)
		}
		ann.post("/roar/r/"+id+"/like", url.Values{"on": {"true"}})
		if e := <-events; e.event != "like" || !strings.Contains(e.data, `"likes":1`) {
			t.Fatalf("got %+v; want a like event with likes 1", e)
		}
		cancel()

		// Missed while away: two roars; reconnect from the first.
		missed1 := ann.roar("missed one", "")
		missed2 := ann.roar("missed two", "")
		ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel2()
		events = openStream(t, ctx2, m.URL()+"/roar/stream", id)
		var got []string
		for range 2 {
			got = append(got, (<-events).id)
		}
		if strings.Join(got, ",") != missed1+","+missed2 {
			t.Fatalf("caught up %v; want [%s %s] (first was %s)", got, missed1, missed2, first)
		}
		// API clients get the roar as the API's Roar instead.
		events = openStream(t, ctx2, m.URL()+"/roar/stream?format=json&after="+missed1, "")
		if e := <-events; e.id != missed2 || !strings.Contains(e.data, `"roar":{"id":`+missed2) || strings.Contains(e.data, `"html"`) {
			t.Fatalf("json stream event %+v; want roar %s as a Roar without html", e, missed2)
		}
	})
}

type sse struct{ id, event, data string }

func openStream(t *testing.T, ctx context.Context, u, lastID string) <-chan sse {
	t.Helper()
	return openStreamWith(t, ctx, http.DefaultClient, u, lastID)
}

// openStreamWith opens the stream with client c (a signed-in user's jar).
func openStreamWith(t *testing.T, ctx context.Context, c *http.Client, u, lastID string) <-chan sse {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("stream content type %q", ct)
	}
	out := make(chan sse, 16)
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var e sse
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if e.event != "" {
					out <- e
				}
				e = sse{}
			case strings.HasPrefix(line, "id: "):
				e.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				e.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				e.data = line[6:]
			}
		}
	}()
	return out
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for range 200 {
		if ok() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("timed out waiting")
}

// TestRepostTwiceIsOneRepost: the repost form, sent twice, reposts once and
// answers success both times; undoing it removes the repost.
func TestRepostTwiceIsOneRepost(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := user(t, m, "ann"), user(t, m, "bob")
		id := ann.roar("worth sharing", "")
		js := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}}
		for range 2 {
			res, body := bob.do("POST", "/roar/r/"+id+"/repost", strings.NewReader("on=true"), js)
			if res.StatusCode != 200 || !strings.Contains(body, `"reposts":1`) || !strings.Contains(body, `"reposted":true`) {
				t.Fatalf("repost: got %d %s; want 200 with reposts 1", res.StatusCode, body)
			}
		}
		_, page := newBrowser(t, m).get("/roar/u/bob")
		if n := strings.Count(page, "reposted</p>"); n != 1 {
			t.Fatalf("bob's profile shows %d reposts; want 1", n)
		}
		res, body := bob.do("POST", "/roar/r/"+id+"/repost", strings.NewReader("on=false"), js)
		if res.StatusCode != 200 || !strings.Contains(body, `"reposts":0`) {
			t.Fatalf("undo repost: got %d %s; want reposts 0", res.StatusCode, body)
		}
	})
}

// TestRetriedPostWritesOnce: nginx sends a POST again to the next instance
// when the one that had it dies, with the same X-Request-Id. A roar that
// the first send had written is not written twice: the second send goes
// back to the page the form was on. Run as nginx does it (the trusted
// proxy's headers, straight to the instance), on each database.
func TestRetriedPostWritesOnce(t *testing.T) {
	for name, u := range dbtest.URLs(t) {
		t.Run(name, func(t *testing.T) {
			m := apptest.StartWith(t, func(c *config.Config) { c.DatabaseURL, c.TrustedProxies = u, "127.0.0.1" })
			b := user(t, m, "retry")
			send := func(id string) *http.Response {
				res, page := b.do("POST", "/roar/roars", strings.NewReader(url.Values{"body": {"only once"}}.Encode()), http.Header{
					"Content-Type":    {"application/x-www-form-urlencoded"},
					"X-Forwarded-For": {"198.51.100.2"},
					"X-Request-Id":    {id},
					"Referer":         {b.base + "/roar/u/retry?form=1"},
				})
				if res.StatusCode != http.StatusSeeOther {
					t.Fatalf("post with request id %s: %d; want 303\n%s", id, res.StatusCode, page)
				}
				return res
			}
			send("nginx-a1")
			if loc := send("nginx-a1").Header.Get("Location"); loc != "/roar/u/retry?form=1" {
				t.Errorf("the same request sent again: to %q; want back to the form's page", loc)
			}
			send("nginx-a2") // another request, the same words: a second roar
			var n int
			if err := db.Scan(m.DB.QueryRow(context.Background(), "SELECT count(*) FROM roars WHERE body = ?", "only once"), &n); err != nil {
				t.Fatal(err)
			}
			if n != 2 {
				t.Errorf("%d roars; want 2 (the retried request written once)", n)
			}
		})
	}
}
