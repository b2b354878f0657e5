package roar_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// A user named "api" is a user like any other: a form posted to
// /roar/u/api/... gets pages and redirects, not JSON (only /roar/api/... is
// the API).
func TestUserNamedAPIGetsPages(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		user(t, m, "api")
		ann := user(t, m, "ann")
		res, body := ann.post("/roar/u/api/follow", url.Values{"on": {"1"}})
		if res.StatusCode != http.StatusSeeOther {
			t.Errorf("follow api: %d %s %q; want 303 back to the page", res.StatusCode, res.Header.Get("Content-Type"), body)
		}
		res, _ = ann.post("/roar/u/api/frobnicate", url.Values{"on": {"1"}})
		if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusNotFound || !strings.HasPrefix(ct, "text/html") {
			t.Errorf("unknown verb: %d %s; want 404 text/html", res.StatusCode, ct)
		}
		res, _ = newBrowser(t, m).post("/roar/u/api/follow", url.Values{"on": {"1"}})
		if loc := res.Header.Get("Location"); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/account/login") {
			t.Errorf("signed out: %d to %q; want 303 to the login page", res.StatusCode, loc)
		}
		// The API itself still answers JSON.
		res, _ = newBrowser(t, m).do("GET", "/roar/api/me", nil, nil)
		if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusUnauthorized || !strings.Contains(ct, "json") {
			t.Errorf("API signed out: %d %s; want 401 JSON", res.StatusCode, ct)
		}
	})
}
