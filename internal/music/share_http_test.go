package music_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

var shareLink = regexp.MustCompile(`value="https?://[^"/]+(/music/s/[A-Za-z0-9_-]{43})"`)

// TestShareLinkPages: a friends-only post's author makes its share link
// from the post's page; with the link a stranger and a visitor see that
// post, and nothing else of the author's friends-only posts; the page is
// never cached nor indexed; revoking asks first, then the link is not
// found at once; a made-up link is not found.
func TestShareLinkPages(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, cat := signUp(t, m, "ann"), signUp(t, m, "bob"), signUp(t, m, "cat")
		vis := visitorOf(t, m)
		befriend(t, ann, bob)
		priv := ann.share("https://soundcloud.com/ann/secret-demo", "the secret demo #wip", "friends")
		other := ann.share("https://soundcloud.com/ann/other-demo", "another hidden one", "friends")
		res, body := cat.Get("/music/p/" + priv)
		apptest.WantStatus(t, res, body, 404)
		// The author's page offers a link; her friend's does not.
		_, body = ann.Get("/music/p/" + priv)
		if !strings.Contains(body, `action="/music/p/`+priv+`/share"`) {
			t.Fatalf("ann's page of her friends-only post offers no share link:\n%s", body)
		}
		if _, body = bob.Get("/music/p/" + priv); strings.Contains(body, "/share") {
			t.Errorf("bob's page of ann's post offers a share link")
		}
		res, body = cat.Post("/music/p/"+priv+"/share", nil)
		apptest.WantStatus(t, res, body, 404)
		res, body = bob.Post("/music/p/"+priv+"/share", nil)
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = ann.Post("/music/p/"+priv+"/share", nil)
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		if loc := res.Header.Get("Location"); loc != "/music/p/"+priv+"#share-link" {
			t.Errorf("after making the link: %q; want the post's page", loc)
		}
		_, body = ann.Get("/music/p/" + priv)
		mm := shareLink.FindStringSubmatch(body)
		if mm == nil {
			t.Fatalf("ann's page does not show the link:\n%s", body)
		}
		link := mm[1]
		// Anyone with the link sees the post, twice (no cache keeps it).
		for _, who := range []*person{vis, cat, vis} {
			res, body := who.Get(link)
			apptest.WantStatus(t, res, body, 200)
			if !strings.Contains(body, "the secret demo") || !strings.Contains(body, "secret-demo") {
				t.Fatalf("the link does not show the post:\n%s", body)
			}
			if strings.Contains(body, "another hidden one") || strings.Contains(body, "/music/p/"+other) || strings.Contains(body, "/music/p/"+priv) {
				t.Errorf("the share page shows or links other posts, or the post's own page:\n%s", body)
			}
			h := res.Header
			if !strings.Contains(h.Get("Cache-Control"), "no-store") || !strings.Contains(h.Get("Cache-Control"), "private") ||
				!strings.Contains(h.Get("X-Robots-Tag"), "noindex") || h.Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("share page headers: Cache-Control %q, X-Robots-Tag %q, Referrer-Policy %q", h.Get("Cache-Control"), h.Get("X-Robots-Tag"), h.Get("Referrer-Policy"))
			}
		}
		// Its author, with the link, is told it is hers and how to revoke it.
		if _, body := ann.Get(link); !strings.Contains(body, "Your share link") || !strings.Contains(body, `/music/p/`+priv+`/share/revoke"`) {
			t.Errorf("the author's view of her link does not say it is hers:\n%s", body)
		}
		// The link opens nothing else: the author's profile, for the
		// visitor who came with it, holds no friends-only post.
		if _, body := vis.Get("/music/u/ann"); strings.Contains(body, "secret demo") || strings.Contains(body, "another hidden") {
			t.Errorf("the visitor sees ann's friends-only posts on her page")
		}
		for _, bad := range []string{"/music/s/" + strings.Repeat("x", 43), "/music/s/short", link + "x", link[:len(link)-1] + "."} {
			res, body := vis.Get(bad)
			apptest.WantStatus(t, res, body, 404)
		}
		// Revoking asks first (the GET changes nothing), says what follows.
		res, body = ann.Get("/music/p/" + priv + "/share/revoke")
		apptest.WantStatus(t, res, body, 200)
		if !strings.Contains(body, `action="/music/p/`+priv+`/share/revoke"`) || !strings.Contains(body, "no longer see this post") {
			t.Fatalf("the revoke page does not ask and explain:\n%s", body)
		}
		res, body = bob.Get("/music/p/" + priv + "/share/revoke")
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = vis.Get(link)
		apptest.WantStatus(t, res, body, 200)
		res, body = bob.Post("/music/p/"+priv+"/share/revoke", nil)
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = ann.Post("/music/p/"+priv+"/share/revoke", nil)
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		for _, who := range []*person{vis, cat} {
			res, body := who.Get(link)
			apptest.WantStatus(t, res, body, 404)
		}
		_, body = ann.Get("/music/p/" + priv)
		if shareLink.MatchString(body) || !strings.Contains(body, `action="/music/p/`+priv+`/share"`) {
			t.Errorf("after revoking, ann's page still shows the link or offers no new one")
		}
		// Friends still see the post.
		res, body = bob.Get("/music/p/" + priv)
		apptest.WantStatus(t, res, body, 200)
	})
}

// TestShareLinkAudio: a friends-only audio opened by its share link plays
// for whoever holds the link (its file's URL carries the token), and for
// nobody else: not with another post's link, a made-up token, or after
// the link is revoked.
func TestShareLinkAudio(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, cat := signUp(t, m, "ann"), signUp(t, m, "cat")
		vis := visitorOf(t, m)
		priv := ann.shareAudio("tone.flac", "a memo for friends", "friends")
		other := ann.shareAudio("tone.ogg", "another memo", "friends")
		apptest.SettleMedia(t, m)
		link := func(id string) string {
			res, body := ann.Post("/music/p/"+id+"/share", nil)
			apptest.WantStatus(t, res, body, http.StatusSeeOther)
			_, body = ann.Get("/music/p/" + id)
			mm := shareLink.FindStringSubmatch(body)
			if mm == nil {
				t.Fatalf("ann's page does not show the link:\n%s", body)
			}
			return mm[1]
		}
		l, lo := link(priv), link(other)
		token, otherToken := strings.TrimPrefix(l, "/music/s/"), strings.TrimPrefix(lo, "/music/s/")
		file := "/music/p/" + priv + "/audio"
		_, body := vis.Get(l)
		if !strings.Contains(body, `src="`+file+`?s=`+token+`"`) {
			t.Fatalf("the share page's player does not carry the link:\n%s", body)
		}
		for _, who := range []*person{vis, cat} {
			res, body := who.Get(file + "?s=" + token)
			apptest.WantStatus(t, res, body, 200)
			if body != string(fixture(t, "tone.flac")) {
				t.Errorf("the file served by the link is not the one uploaded")
			}
			for _, bad := range []string{"", "?s=" + otherToken, "?s=" + strings.Repeat("A", len(token)), "?s=x"} {
				if res, _ := who.Get(file + bad); res.StatusCode != 404 {
					t.Errorf("GET %s%s: %d; want 404", file, bad, res.StatusCode)
				}
			}
		}
		res, body := ann.Post("/music/p/"+priv+"/share/revoke", nil)
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		if res, _ := vis.Get(file + "?s=" + token); res.StatusCode != 404 {
			t.Errorf("the revoked link still plays the file: %d", res.StatusCode)
		}
	})
}
