package roar_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestMalformedQueryIs400: a malformed query parameter (a cursor, a limit, a
// feed, a format) on any page or API answers 400 with a plain message naming
// the parameter (problem details for the API), never the form's 422 "Please
// correct the marked fields." on a page that has no fields.
func TestMalformedQueryIs400(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := user(t, m, "ann")
		id := ann.roar("hello #go", "")
		pages := []struct{ path, param string }{
			{"/roar/?before=abc", "before"},
			{"/roar/?before=-3", "before"},
			{"/roar/home?before=1x", "before"},
			{"/roar/tags/go?before=%20", "before"},
			{"/roar/u/ann?before=9999999999999999999999", "before"},
			{"/roar/r/" + id + "?after=abc", "after"},
			{"/roar/notifications?before=abc", "before"},
			{"/roar/live?since=abc", "since"},
			{"/roar/live?feed=everyone", "feed"},
			{"/roar/stream?after=abc", "after"},
			{"/roar/stream?format=xml", "format"},
			{"/roar/stream?feed=nobody", "feed"},
		}
		for _, p := range pages {
			t.Run("page "+p.path, func(t *testing.T) {
				res, body := ann.get(p.path)
				if res.StatusCode != http.StatusBadRequest {
					t.Fatalf("GET %s: status %d; want 400\n%.600s", p.path, res.StatusCode, body)
				}
				if strings.Contains(body, "marked fields") {
					t.Errorf("GET %s: the form's message on a page without fields", p.path)
				}
				if want := "The " + p.param + " parameter must be"; !strings.Contains(body, want) {
					t.Errorf("GET %s: page lacks %q\n%.600s", p.path, want, body)
				}
			})
		}

		c := signedIn(t, m, "bob")
		apis := []struct{ path, param string }{
			{"/roar/api/roars?before=abc", "before"},
			{"/roar/api/roars?since=-1", "since"},
			{"/roar/api/roars?limit=0", "limit"},
			{"/roar/api/roars?limit=lots", "limit"},
			{"/roar/api/roars/" + id + "/replies?after=x", "after"},
			{"/roar/api/roars/" + id + "/replies?limit=999", "limit"},
			{"/roar/api/timelines/home?before=abc", "before"},
			{"/roar/api/tags/go/roars?since=abc", "since"},
			{"/roar/api/users/ann/roars?before=1.5", "before"},
			{"/roar/api/notifications?before=abc", "before"},
			{"/roar/api/notifications?limit=0", "limit"},
		}
		for _, a := range apis {
			t.Run("api "+a.path, func(t *testing.T) {
				p := c.refused("GET", a.path, nil, http.StatusBadRequest)
				if want := "The " + a.param + " parameter must be"; !strings.HasPrefix(p.Detail, want) || len(p.Fields) > 0 {
					t.Errorf("GET %s: detail %q fields %v; want %q… and no fields", a.path, p.Detail, p.Fields, want)
				}
			})
		}
	})
}
