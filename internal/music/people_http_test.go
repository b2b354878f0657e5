package music_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/music"
)

// TestPeopleSearchPage: the search finds people by any name word, accents
// aside, pages with a cursor, and shows each row's button of how the
// viewer stands to them, for no more statements with 20 rows than with 2; the type-ahead's fragment is the same list, never cached.
func TestPeopleSearchPage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, cat := signUp(t, m, "ann"), signUp(t, m, "bob"), signUp(t, m, "cat")
		zoe := signUp(t, m, "zoe")
		res, body := zoe.Post("/account/settings", url.Values{"display_name": {"Zoë Ångström"}, "bio": {""}})
		if res.StatusCode >= 400 {
			t.Fatalf("settings: %d\n%s", res.StatusCode, body)
		}
		befriend(t, ann, bob)
		res, body = cat.Post("/music/u/ann/befriend", nil)
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		// Accents and case aside, any word of the name.
		for _, q := range []string{"zoe", "ANGSTR", "Zoë Å"} {
			_, body := ann.Get("/music/people?q=" + url.QueryEscape(q))
			if !strings.Contains(body, `href="/music/u/zoe"`) || !strings.Contains(body, "Zoë Ångström") {
				t.Errorf("searching %q does not find Zoë:\n%s", q, body)
			}
		}
		// Each row's button: ann herself, her friend bob, cat who asked her,
		// zoe a stranger.
		row := func(body, name string) string {
			i := strings.Index(body, `<a class="who" href="/music/u/`+name+`"`)
			if i < 0 {
				return ""
			}
			j := strings.Index(body[i:], "</li>")
			return body[i : i+j]
		}
		checks := map[string]string{"ann": ">you<", "bob": ">friend<", "cat": `action="/music/u/cat/accept"`, "zoe": `action="/music/u/zoe/befriend"`}
		for q, name := range map[string]string{"ann": "ann", "bob": "bob", "cat": "cat", "zoe": "zoe"} {
			_, body = ann.Get("/music/people?q=" + q)
			if r := row(body, name); !strings.Contains(r, checks[name]) {
				t.Errorf("ann's row of %s lacks %s:\n%s", name, checks[name], r)
			}
		}
		_, body = bob.Get("/music/people?q=ann")
		if r := row(body, "ann"); !strings.Contains(r, ">friend<") {
			t.Errorf("bob's row of ann lacks friend:\n%s", r)
		}
		// A visitor sees the people, no buttons.
		_, body = visitorOf(t, m).Get("/music/people?q=ann")
		if !strings.Contains(body, `href="/music/u/ann"`) || strings.Contains(body, "/befriend") {
			t.Errorf("a visitor's search: want ann, no buttons:\n%s", body)
		}
		// Adding a friend from the list returns to the list, request sent.
		res, body = ann.Post("/music/u/zoe/befriend", nil)
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		_, body = ann.Get("/music/people?q=zoe")
		if r := row(body, "zoe"); !strings.Contains(r, ">request sent<") {
			t.Errorf("after asking zoe, ann's row lacks request sent:\n%s", r)
		}
		// The type-ahead's fragment: the same rows, not stored by caches.
		res, body = ann.Get("/music/people/suggest?q=zo")
		apptest.WantStatus(t, res, body, 200)
		if !strings.Contains(body, `href="/music/u/zoe"`) || strings.Contains(body, "<html") || !strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
			t.Errorf("suggest: %q\n%s", res.Header.Get("Cache-Control"), body)
		}
		// Statements: the same with 2 rows (ann, Ångström) as with 20 of 27.
		count := func(q string) (int64, string) {
			ann.Get("/")
			q0 := apptest.Queries(m)
			res, body := ann.Get("/music/people?q=" + q)
			apptest.WantStatus(t, res, body, 200)
			return apptest.Queries(m) - q0, body
		}
		small, _ := count("a")
		// (Made without signing in: a cluster's login limits are shared.)
		svc := musicService(t, m)
		for i := range 25 {
			name := fmt.Sprintf("al%02d", i)
			u, err := m.Auth.Create(context.Background(), auth.Signup{Username: name, Email: name + "@example.com", Password: "password-" + name})
			if err != nil {
				t.Fatal(err)
			}
			switch i % 3 {
			case 0: // friends (they ask: ann's friend requests are rate-limited)
				if err := svc.Relate(context.Background(), u, "ann", "befriend"); err != nil {
					t.Fatal(err)
				}
				res, body := ann.Post("/music/u/"+name+"/accept", nil)
				apptest.WantStatus(t, res, body, http.StatusSeeOther)
			case 1: // asking ann
				if err := svc.Relate(context.Background(), u, "ann", "befriend"); err != nil {
					t.Fatal(err)
				}
			}
		}
		big, body := count("a")
		// (PostgreSQL's search reads the first rows, then the index when
		// they did not fill the page: a rare start may cost one more.)
		if big > small {
			t.Errorf("search: %d statements with 2 people, %d with 20; want no more", small, big)
		}
		t.Logf("people search costs %d statements", small)
		next := strings.Index(body, `rel="next" href="`)
		if next < 0 || strings.Count(body, `<a class="who"`) != 20 {
			t.Fatalf("the first page: %d rows, next link %v; want 20 and a link", strings.Count(body, `<a class="who"`), next >= 0)
		}
		href := body[next+len(`rel="next" href="`):]
		href = strings.ReplaceAll(href[:strings.Index(href, `"`)], "&amp;", "&")
		_, body = ann.Get(href)
		if n := strings.Count(body, `<a class="who"`); n != 27-20 || strings.Contains(body, `rel="next"`) {
			t.Errorf("the second page (%s): %d rows; want %d and no next link", href, n, 27-20)
		}
	})
}

// musicService is the music service of m's first instance.
func musicService(t *testing.T, m *app.Main) *music.Service {
	t.Helper()
	for _, i := range apptest.Instances(m) {
		for _, a := range i.Apps {
			if ma, ok := a.(*music.App); ok {
				return ma.Service()
			}
		}
	}
	t.Fatal("no music app")
	return nil
}
