package roar_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/auth"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestAPIRoars walks the roar resources: post, read, reply, thread, like,
// repost, report, delete; like and repost twice count once.
func TestAPIRoars(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := signedIn(t, m, "ann"), signedIn(t, m, "bob")
		anon := visitor(t, m)

		var me struct {
			Username string `json:"username"`
			Unread   int64  `json:"unread_notifications"`
		}
		ann.call("GET", "/roar/api/me", nil, 200, &me)
		if me.Username != "ann" {
			t.Errorf("me: %q; want ann", me.Username)
		}

		var r roarJSON
		res := ann.call("POST", "/roar/api/roars", map[string]any{"body": "  hello #Go world, @bob  "}, 201, &r)
		if r.Body != "hello #Go world, @bob" || r.Author.Username != "ann" || r.ID == 0 {
			t.Fatalf("posted %+v; want the trimmed body by ann", r)
		}
		if loc := res.Header.Get("Location"); loc != "/roar/api/roars/"+itoa(r.ID) {
			t.Errorf("Location %q", loc)
		}
		var got roarJSON
		anon.call("GET", "/roar/api/roars/"+itoa(r.ID), nil, 200, &got)
		if got.Body != r.Body || got.Liked != nil {
			t.Errorf("visitor got %+v; want the body and no liked mark", got)
		}

		var reply roarJSON
		bob.call("POST", "/roar/api/roars", map[string]any{"body": "@ann hi back", "reply_to": r.ID}, 201, &reply)
		if reply.ReplyTo != r.ID {
			t.Errorf("reply_to %d; want %d", reply.ReplyTo, r.ID)
		}
		var replies, thread listJSON
		anon.call("GET", "/roar/api/roars/"+itoa(r.ID)+"/replies", nil, 200, &replies)
		if !slices.Equal(replies.ids(), []int64{reply.ID}) {
			t.Errorf("replies %v; want [%d]", replies.ids(), reply.ID)
		}
		anon.call("GET", "/roar/api/roars/"+itoa(reply.ID)+"/thread", nil, 200, &thread)
		if !slices.Equal(thread.ids(), []int64{r.ID}) {
			t.Errorf("thread %v; want [%d]", thread.ids(), r.ID)
		}

		// Like twice counts once; unlike twice too.
		var like struct {
			ID    int64 `json:"id"`
			Liked bool  `json:"liked"`
			Likes int64 `json:"likes"`
		}
		for range 2 {
			bob.call("PUT", "/roar/api/roars/"+itoa(r.ID)+"/like", nil, 200, &like)
			if !like.Liked || like.Likes != 1 {
				t.Errorf("like: %+v; want liked, 1 like", like)
			}
		}
		bob.call("GET", "/roar/api/roars/"+itoa(r.ID), nil, 200, &got)
		if got.Liked == nil || !*got.Liked || got.Likes != 1 {
			t.Errorf("bob sees %+v; want liked by him, 1 like", got)
		}
		for range 2 {
			bob.call("DELETE", "/roar/api/roars/"+itoa(r.ID)+"/like", nil, 200, &like)
			if like.Liked || like.Likes != 0 {
				t.Errorf("unlike: %+v; want 0 likes", like)
			}
		}

		// Repost twice is one repost; it shows on the timeline with the original.
		var rp struct {
			Reposted bool  `json:"reposted"`
			Reposts  int64 `json:"reposts"`
		}
		for range 2 {
			bob.call("PUT", "/roar/api/roars/"+itoa(r.ID)+"/repost", nil, 200, &rp)
			if !rp.Reposted || rp.Reposts != 1 {
				t.Errorf("repost: %+v; want 1 repost", rp)
			}
		}
		var pub listJSON
		bob.call("GET", "/roar/api/roars", nil, 200, &pub)
		if len(pub.Roars) != 3 || pub.Roars[0].RepostOf == nil || pub.Roars[0].RepostOf.ID != r.ID {
			t.Fatalf("public timeline %+v; want the repost of %d first", pub.Roars, r.ID)
		}
		if o := pub.Roars[0].RepostOf; o.Reposted == nil || !*o.Reposted {
			t.Errorf("the original in bob's repost is not marked reposted by him: %+v", o)
		}
		for range 2 {
			bob.call("DELETE", "/roar/api/roars/"+itoa(r.ID)+"/repost", nil, 200, &rp)
			if rp.Reposted || rp.Reposts != 0 {
				t.Errorf("unrepost: %+v; want 0 reposts", rp)
			}
		}

		// Report, then a moderator sees and dismisses it.
		bob.call("POST", "/roar/api/roars/"+itoa(r.ID)+"/reports", map[string]string{"reason": "spam, I think"}, 204, nil)
		bob.fails("GET", "/roar/api/reports", nil, 403)
		bob.fails("DELETE", "/roar/api/reports/"+itoa(r.ID), nil, 403)
		newUser(t, m, "mod")
		if err := m.Auth.Grant(context.Background(), "mod", auth.Role{App: "roar", Name: "moderator"}); err != nil {
			t.Fatal(err)
		}
		mod := visitor(t, m)
		mod.call("POST", "/roar/api/session", map[string]string{"login": "mod@example.com", "password": testPassword}, 200, nil)
		var reports struct {
			Reports []struct {
				Roar     roarJSON `json:"roar"`
				Count    int64    `json:"count"`
				Reason   string   `json:"reason"`
				Reporter string   `json:"reporter"`
			} `json:"reports"`
		}
		mod.call("GET", "/roar/api/reports", nil, 200, &reports)
		if len(reports.Reports) != 1 || reports.Reports[0].Roar.ID != r.ID || reports.Reports[0].Count != 1 ||
			reports.Reports[0].Reason != "spam, I think" || reports.Reports[0].Reporter != "bob" {
			t.Fatalf("reports %+v; want bob's one report of %d", reports.Reports, r.ID)
		}
		mod.call("DELETE", "/roar/api/reports/"+itoa(r.ID), nil, 204, nil)
		mod.call("GET", "/roar/api/reports", nil, 200, &reports)
		if len(reports.Reports) != 0 {
			t.Errorf("reports after dismissing: %+v", reports.Reports)
		}

		// Only the author (or a moderator) deletes.
		bob.fails("DELETE", "/roar/api/roars/"+itoa(r.ID), nil, 403)
		ann.call("DELETE", "/roar/api/roars/"+itoa(r.ID), nil, 204, nil)
		anon.fails("GET", "/roar/api/roars/"+itoa(r.ID), nil, 404)
		mod.call("DELETE", "/roar/api/roars/"+itoa(reply.ID), nil, 204, nil)
		anon.fails("GET", "/roar/api/roars/"+itoa(reply.ID), nil, 404)

		// Log out: the session is gone.
		ann.call("DELETE", "/roar/api/session", nil, 204, nil)
		if ann.hasSession() {
			t.Error("the session cookie is still there after logging out")
		}
		ann.refused("GET", "/roar/api/me", nil, 401)
		anon.call("DELETE", "/roar/api/session", nil, 204, nil)
	})
}

// TestAPIUsers covers profiles, follow/mute/block, the home, tag and user
// timelines, and notifications.
func TestAPIUsers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, cat := signedIn(t, m, "ann"), signedIn(t, m, "bob"), signedIn(t, m, "cat")
		anon := visitor(t, m)
		a1 := ann.post("first #TuttiTest roar")
		c1 := cat.post("cat says hi @ann")

		var p profileJSON
		anon.call("GET", "/roar/api/users/ANN", nil, 200, &p)
		if p.Username != "ann" || p.Roars != 1 || p.Relation != nil {
			t.Errorf("visitor's profile of ann %+v; want 1 roar, no relation", p)
		}
		bob.call("PUT", "/roar/api/users/ann/follow", nil, 200, &p)
		bob.call("PUT", "/roar/api/users/ann/follow", nil, 200, &p)
		if p.Followers != 1 || p.Relation == nil || !p.Relation.Following || p.Relation.Me {
			t.Errorf("after following twice %+v; want 1 follower, followed by bob", p)
		}
		ann.call("GET", "/roar/api/users/bob", nil, 200, &p)
		if p.Relation == nil || !p.Relation.FollowsMe || p.Following != 1 {
			t.Errorf("ann's view of bob %+v; want follows_me", p)
		}
		ann.call("GET", "/roar/api/users/ann", nil, 200, &p)
		if p.Relation == nil || !p.Relation.Me {
			t.Errorf("ann's own profile: relation %+v; want me", p.Relation)
		}

		var home listJSON
		bob.call("GET", "/roar/api/timelines/home", nil, 200, &home)
		if !slices.Equal(home.ids(), []int64{a1.ID}) {
			t.Errorf("bob's home %v; want ann's roar %d only", home.ids(), a1.ID)
		}
		bob.call("DELETE", "/roar/api/users/ann/follow", nil, 200, &p)
		if p.Relation.Following || p.Followers != 0 {
			t.Errorf("after unfollowing %+v", p)
		}
		bob.call("GET", "/roar/api/timelines/home", nil, 200, &home)
		if len(home.Roars) != 0 {
			t.Errorf("home after unfollowing %v; want empty", home.ids())
		}

		var tag, mine listJSON
		anon.call("GET", "/roar/api/tags/tuttitest/roars", nil, 200, &tag)
		if !slices.Equal(tag.ids(), []int64{a1.ID}) {
			t.Errorf("#tuttitest %v; want [%d]", tag.ids(), a1.ID)
		}
		anon.fails("GET", "/roar/api/tags/no%20tag/roars", nil, 404)
		anon.call("GET", "/roar/api/users/cat/roars", nil, 200, &mine)
		if !slices.Equal(mine.ids(), []int64{c1.ID}) {
			t.Errorf("cat's roars %v; want [%d]", mine.ids(), c1.ID)
		}

		// Mute hides cat from bob's timelines; unmute brings her back.
		var pub listJSON
		bob.call("PUT", "/roar/api/users/cat/mute", nil, 200, &p)
		if !p.Relation.Muted {
			t.Errorf("mute: %+v", p.Relation)
		}
		bob.call("GET", "/roar/api/roars", nil, 200, &pub)
		if !slices.Equal(pub.ids(), []int64{a1.ID}) {
			t.Errorf("bob's public timeline with cat muted %v; want [%d]", pub.ids(), a1.ID)
		}
		bob.call("DELETE", "/roar/api/users/cat/mute", nil, 200, &p)
		bob.call("GET", "/roar/api/roars", nil, 200, &pub)
		if len(pub.Roars) != 2 {
			t.Errorf("after unmuting %v; want 2 roars", pub.ids())
		}

		// Block: bob cannot like or follow cat while it lasts.
		bob.call("PUT", "/roar/api/users/cat/block", nil, 200, &p)
		if !p.Relation.Blocked {
			t.Errorf("block: %+v", p.Relation)
		}
		bob.fails("PUT", "/roar/api/roars/"+itoa(c1.ID)+"/like", nil, 403)
		bob.fails("PUT", "/roar/api/users/cat/follow", nil, 403)
		cat.call("GET", "/roar/api/users/bob", nil, 200, &p)
		if !p.Relation.BlocksMe {
			t.Errorf("cat's view of bob: %+v; want blocks_me", p.Relation)
		}
		bob.call("DELETE", "/roar/api/users/cat/block", nil, 200, &p)
		bob.call("PUT", "/roar/api/roars/"+itoa(c1.ID)+"/like", nil, 200, nil)
		bob.fails("PUT", "/roar/api/users/bob/follow", nil, 422)
		bob.fails("PUT", "/roar/api/users/nobody/follow", nil, 404)

		// Notifications: cat's mention and bob's like, newest first; seen.
		var notes struct {
			Notifications []struct {
				ID    int64    `json:"id"`
				Kind  string   `json:"kind"`
				Actor userJSON `json:"actor"`
				Seen  bool     `json:"seen"`
				Roar  *struct {
					ID int64 `json:"id"`
				} `json:"roar"`
			} `json:"notifications"`
			Unread int64  `json:"unread"`
			Next   string `json:"next"`
		}
		ann.call("GET", "/roar/api/notifications", nil, 200, &notes)
		var kinds []string
		for _, n := range notes.Notifications {
			kinds = append(kinds, n.Kind+":"+n.Actor.Username)
		}
		if want := []string{"follow:bob", "mention:cat"}; !slices.Equal(kinds, want) || notes.Unread != 2 {
			t.Fatalf("ann's notifications %v (%d unread); want %v, 2 unread", kinds, notes.Unread, want)
		}
		cat.call("GET", "/roar/api/notifications?limit=1", nil, 200, &notes)
		if len(notes.Notifications) != 1 || notes.Notifications[0].Kind != "like" || notes.Next != "" {
			t.Errorf("cat's notifications %+v; want bob's like", notes)
		}
		var unread struct {
			Unread int64 `json:"unread"`
		}
		ann.call("GET", "/roar/api/notifications?limit=1", nil, 200, &notes)
		if notes.Next == "" {
			t.Fatal("no next page of notifications at limit=1")
		}
		newest := notes.Notifications[0].ID
		ann.call("GET", notes.Next, nil, 200, &notes)
		if len(notes.Notifications) != 1 || notes.Notifications[0].ID >= newest {
			t.Errorf("second page of notifications %+v", notes.Notifications)
		}
		ann.call("POST", "/roar/api/notifications/seen", map[string]int64{"up_to": newest}, 200, &unread)
		if unread.Unread != 0 {
			t.Errorf("unread after seen: %d", unread.Unread)
		}
		var me struct {
			Unread int64 `json:"unread_notifications"`
		}
		ann.call("GET", "/roar/api/me", nil, 200, &me)
		if me.Unread != 0 {
			t.Errorf("me: %d unread; want 0", me.Unread)
		}
		ann.refused("POST", "/roar/api/notifications/seen", map[string]int64{"up_to": 0}, 422)
	})
}

// TestAPIPaging: keyset pages do not repeat or skip while new roars arrive,
// since= returns only what is newer (oldest first), and a page costs the
// same number of queries whatever its length.
func TestAPIPaging(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		var all []int64 // newest first
		for _, name := range []string{"ann", "bob", "cat"} {
			c := signedIn(t, m, name)
			for i := range 4 {
				all = append([]int64{c.post(fmt.Sprintf("%s's roar %d", name, i)).ID}, all...)
			}
		}
		if !slices.IsSortedFunc(all, func(a, b int64) int { return int(b - a) }) {
			t.Fatalf("ids not increasing with time: %v", all)
		}
		dan := signedIn(t, m, "dan")
		anon := visitor(t, m)

		var page listJSON
		anon.call("GET", "/roar/api/roars?limit=5", nil, 200, &page)
		if !slices.Equal(page.ids(), all[:5]) || page.Next == "" {
			t.Fatalf("first page %v next %q; want %v and a next", page.ids(), page.Next, all[:5])
		}
		// New roars arrive between pages: the next pages neither repeat nor skip.
		var fresh []int64
		for i := range 3 {
			fresh = append(fresh, dan.post(fmt.Sprintf("new %d", i)).ID)
		}
		seen := page.ids()
		for page.Next != "" {
			next := page.Next
			page = listJSON{}
			anon.call("GET", next, nil, 200, &page)
			if len(page.Roars) > 5 {
				t.Fatalf("page of %d at limit=5", len(page.Roars))
			}
			seen = append(seen, page.ids()...)
		}
		if !slices.Equal(seen, all) {
			t.Errorf("paged through %v; want %v", seen, all)
		}

		// since= is what is newer than the newest we had, oldest first.
		var since listJSON
		anon.call("GET", "/roar/api/roars?since="+itoa(all[0]), nil, 200, &since)
		if !slices.Equal(since.ids(), fresh) || since.Next != "" {
			t.Errorf("since %d: %v next %q; want %v", all[0], since.ids(), since.Next, fresh)
		}
		anon.call("GET", "/roar/api/roars?since="+itoa(all[0])+"&limit=2", nil, 200, &since)
		if !slices.Equal(since.ids(), fresh[:2]) || since.Next == "" {
			t.Fatalf("since, limit 2: %v next %q; want %v and a next", since.ids(), since.Next, fresh[:2])
		}
		anon.call("GET", since.Next, nil, 200, &since)
		if !slices.Equal(since.ids(), fresh[2:]) {
			t.Errorf("since, second batch: %v; want %v", since.ids(), fresh[2:])
		}
		anon.call("GET", "/roar/api/roars?since="+itoa(fresh[2]), nil, 200, &since)
		if len(since.Roars) != 0 {
			t.Errorf("since the newest: %v; want nothing", since.ids())
		}
		p := anon.fails("GET", "/roar/api/roars?since=1&before=5", nil, 400)
		if !strings.Contains(p.Detail, "not both") {
			t.Errorf("since with before: detail %q", p.Detail)
		}
		for _, q := range []string{"limit=0", "limit=201", "before=abc", "since=-1"} {
			anon.refused("GET", "/roar/api/roars?"+q, nil, 400)
		}
		var def listJSON
		anon.call("GET", "/roar/api/roars?limit=200", nil, 200, &def)
		if len(def.Roars) != len(all)+len(fresh) || def.Next != "" {
			t.Errorf("limit=200: %d roars, next %q; want %d, none", len(def.Roars), def.Next, len(all)+len(fresh))
		}

		// No N+1: a signed-in page of 2 and of 15 cost the same queries.
		cost := func(path string) int64 {
			before := apptest.Queries(m)
			dan.call("GET", path, nil, 200, nil)
			return apptest.Queries(m) - before
		}
		cost("/roar/api/roars?limit=1") // warm up
		if small, big := cost("/roar/api/roars?limit=2"), cost("/roar/api/roars?limit=15"); small != big {
			t.Errorf("queries: %d for 2 roars, %d for 15; want the same", small, big)
		}
	})
}

// TestAPIVisitorCache: the visitor's first page comes from the cache with an
// ETag, answers 304, and shows a new roar on the very next request.
func TestAPIVisitorCache(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := signedIn(t, m, "ann")
		anon := visitor(t, m)
		first := ann.post("before the cache")

		res, body := anon.send("GET", "/roar/api/roars", nil, nil, false)
		etag := res.Header.Get("ETag")
		if res.StatusCode != 200 || etag == "" {
			t.Fatalf("first GET: %d, ETag %q; want 200 with an ETag", res.StatusCode, etag)
		}
		if cc := res.Header.Get("Cache-Control"); strings.Contains(cc, "no-store") {
			t.Errorf("Cache-Control %q on the cached page", cc)
		}
		if !strings.Contains(string(body), `"id":`+itoa(first.ID)) {
			t.Errorf("first page lacks roar %d: %.300s", first.ID, body)
		}
		res, body = anon.send("GET", "/roar/api/roars", nil, http.Header{"If-None-Match": {etag}}, false)
		if res.StatusCode != http.StatusNotModified || len(body) != 0 {
			t.Fatalf("If-None-Match: %d with %d bytes; want 304, empty", res.StatusCode, len(body))
		}
		next := ann.post("after the cache")
		var page listJSON
		res, body = anon.send("GET", "/roar/api/roars", nil, http.Header{"If-None-Match": {etag}}, false)
		anon.check(res, body, 200, &page)
		if len(page.Roars) == 0 || page.Roars[0].ID != next.ID {
			t.Fatalf("after a new roar: %v; want %d first", page.ids(), next.ID)
		}
		if res.Header.Get("ETag") == etag {
			t.Error("the ETag did not change with the content")
		}
		// gzip from the cache, decompressed by the transport.
		if !res.Uncompressed {
			t.Log("the cached page was not sent gzipped")
		}
		// Signed-in callers get their own marks, not the visitors' page.
		var mine listJSON
		ann.call("GET", "/roar/api/roars", nil, 200, &mine)
		if len(mine.Roars) == 0 || mine.Roars[0].Liked == nil {
			t.Errorf("signed-in page without liked marks: %+v", mine.Roars)
		}

		// The document itself: byte for byte, with an ETag that answers 304.
		anon.Served(contract, "/roar/api/openapi.json")
	})
}

// TestAPIErrors: 401, 403, 404, 405, 422 and 429 as problem details.
func TestAPIErrors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := signedIn(t, m, "ann"), signedIn(t, m, "bob")
		anon := visitor(t, m)
		r := ann.post("mine")
		id := itoa(r.ID)

		// 401 without a session.
		for _, c := range []struct{ method, path string }{
			{"GET", "/roar/api/me"}, {"POST", "/roar/api/roars"}, {"DELETE", "/roar/api/roars/" + id},
			{"PUT", "/roar/api/roars/" + id + "/like"}, {"PUT", "/roar/api/roars/" + id + "/repost"},
			{"GET", "/roar/api/timelines/home"}, {"GET", "/roar/api/notifications"}, {"GET", "/roar/api/reports"},
			{"PUT", "/roar/api/users/ann/follow"},
		} {
			var body any
			if c.method == "POST" {
				body = map[string]string{"body": "hi"}
			}
			anon.refused(c.method, c.path, body, 401)
		}
		p := anon.fails("POST", "/roar/api/session", map[string]string{"login": "ann", "password": "wrong password"}, 401)
		if p.Detail == "" {
			t.Error("401 without a detail")
		}
		anon.fails("POST", "/roar/api/session", map[string]string{"login": "nobody", "password": "wrong password"}, 401)
		if p := anon.refused("POST", "/roar/api/session", map[string]string{"login": "ann", "password": "x", "otp": "1"}, 422); p.Fields["otp"] == "" {
			t.Errorf("unknown login field: fields %v", p.Fields)
		}

		// 422: empty, blank, too long, unknown fields, wrong types.
		for _, c := range []struct {
			name  string
			body  any
			off   bool
			field string
		}{
			{"empty", map[string]any{"body": ""}, true, "body"},
			{"missing", map[string]any{}, true, "body"},
			{"blank", map[string]any{"body": " \n\t "}, false, "body"},
			{"281 code points", map[string]any{"body": strings.Repeat("é", 281)}, true, "body"},
			{"unknown field", map[string]any{"body": "hi", "colour": "red"}, true, "colour"},
			{"wrong type", map[string]any{"body": 5}, true, "body"},
			{"reply to nothing", map[string]any{"body": "hi", "reply_to": 999999}, false, "reply_to"},
		} {
			var p problem
			if c.off {
				p = ann.refused("POST", "/roar/api/roars", c.body, 422)
			} else {
				p = ann.fails("POST", "/roar/api/roars", c.body, 422)
			}
			if p.Fields[c.field] == "" {
				t.Errorf("%s: fields %v; want a message for %s", c.name, p.Fields, c.field)
			}
		}
		ann.refused("POST", "/roar/api/roars", "{not json", 422)
		ann.refused("POST", "/roar/api/roars/"+id+"/reports", map[string]string{"reason": ""}, 422)
		if p := ann.fails("POST", "/roar/api/roars/"+id+"/reports", map[string]string{"reason": "   "}, 422); p.Fields["reason"] == "" {
			t.Errorf("blank reason: fields %v", p.Fields)
		}
		// 280 code points (560 bytes) fit.
		long := ann.post(strings.Repeat("é", 280))
		ann.call("DELETE", "/roar/api/roars/"+itoa(long.ID), nil, 204, nil)

		// 403: someone else's roar; not a moderator.
		bob.fails("DELETE", "/roar/api/roars/"+id, nil, 403)
		bob.fails("GET", "/roar/api/reports", nil, 403)

		// 404: unknown ids and names.
		for _, c := range []struct{ method, path string }{
			{"GET", "/roar/api/roars/999999"}, {"DELETE", "/roar/api/roars/999999"},
			{"PUT", "/roar/api/roars/999999/like"}, {"DELETE", "/roar/api/roars/999999/like"},
			{"PUT", "/roar/api/roars/999999/repost"}, {"DELETE", "/roar/api/roars/999999/repost"},
			{"GET", "/roar/api/roars/999999/replies"}, {"GET", "/roar/api/roars/999999/thread"},
			{"GET", "/roar/api/users/nobody"}, {"GET", "/roar/api/users/nobody/roars"},
		} {
			bob.fails(c.method, c.path, nil, 404)
		}
		bob.fails("POST", "/roar/api/roars/999999/reports", map[string]string{"reason": "gone"}, 404)
		bob.refused("GET", "/roar/api/roars/abc", nil, 404)
		bob.refused("GET", "/roar/api/roars/0", nil, 404)
		bob.refused("GET", "/roar/api/nothing-here", nil, 404)

		// 405: the wrong method on a resource.
		for _, c := range []struct{ method, path, allow string }{
			{"PATCH", "/roar/api/roars/" + id, "DELETE, GET, HEAD"},
			{"POST", "/roar/api/me", "GET, HEAD"},
			{"PUT", "/roar/api/roars", "GET, HEAD, POST"},
		} {
			res, _ := ann.send(c.method, c.path, nil, nil, true)
			if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != c.allow {
				t.Errorf("%s %s: %d, Allow %q; want 405, %q", c.method, c.path, res.StatusCode, res.Header.Get("Allow"), c.allow)
			}
		}

		// 429 once the posting burst is spent, with Retry-After.
		var limited *http.Response
		for i := 0; i < 20 && limited == nil; i++ {
			res, body := bob.send("POST", "/roar/api/roars", map[string]string{"body": "flood " + strconv.Itoa(i)}, nil, false)
			switch res.StatusCode {
			case http.StatusCreated:
			case http.StatusTooManyRequests:
				limited = res
			default:
				t.Fatalf("post %d: %d %s", i, res.StatusCode, body)
			}
		}
		if limited == nil {
			t.Fatal("20 roars in a row were never rate limited")
		}
		if ra, err := strconv.Atoi(limited.Header.Get("Retry-After")); err != nil || ra < 1 {
			t.Errorf("Retry-After %q; want whole seconds", limited.Header.Get("Retry-After"))
		}
	})
}

// TestAPIHTMLInRoars: markup in a roar comes back verbatim in JSON (escaping
// is the client's job), and the site's pages show it escaped.
func TestAPIHTMLInRoars(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := signedIn(t, m, "ann")
		body := `<script>alert("x")</script> & <b>bold</b>`
		r := ann.post(body)
		var got roarJSON
		visitor(t, m).call("GET", "/roar/api/roars/"+itoa(r.ID), nil, 200, &got)
		if got.Body != body || r.Body != body {
			t.Errorf("JSON body %q; want %q verbatim", got.Body, body)
		}
		res, err := apptest.Client(t).Get(m.URL() + "/roar/r/" + itoa(r.ID))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		html, _ := io.ReadAll(res.Body)
		page := string(html)
		if strings.Contains(page, `<script>alert(`) || strings.Contains(page, "<b>bold</b>") {
			t.Error("the page shows the roar's markup unescaped")
		}
		if !strings.Contains(page, "&lt;script&gt;alert(") {
			t.Errorf("the page does not show the roar as escaped text")
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
