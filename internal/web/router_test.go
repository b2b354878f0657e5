package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRouter: routes mount under the prefix; a group's middleware runs
// before its handlers, in order, and never for routes outside it; Route
// lengthens the prefix; a handler's MaxBody stays where LimitBody finds it.
func TestRouter(t *testing.T) {
	mux := http.NewServeMux()
	rt := NewRouter(mux, "/app")
	mark := func(name string) Middleware {
		return func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Add("X-Ran", name)
				if r.URL.Query().Get("deny") == name {
					http.Error(w, "denied by "+name, http.StatusForbidden)
					return
				}
				next.ServeHTTP(w, r)
			})
		}
	}
	ok := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(body + " " + r.PathValue("id"))) }
	}
	signed := rt.Group(mark("signed"))
	mods := signed.Group(mark("mods"))
	admin := signed.Route("/r/{id}/admin", mark("admin"))
	rt.Get("/{$}", ok("home"))
	signed.Post("/posts", ok("post"))
	mods.Get("/reports", ok("reports"))
	admin.Get("", ok("admin"))
	admin.Handle(http.MethodPost, "/upload", MaxBody(10, ok("upload")))
	_ = rt.Group(mark("unused")) // a group adds nothing to its parent

	if got := rt.Pattern("GET", "/x"); got != "GET /app/x" {
		t.Errorf("Pattern: %q; want GET /app/x", got)
	}
	if got := admin.Path("/events"); got != "/app/r/{id}/admin/events" {
		t.Errorf("Path: %q", got)
	}
	cases := []struct {
		method, target string
		code           int
		body, ran      string
	}{
		{"GET", "/app/", 200, "home", ""},
		{"POST", "/app/posts", 200, "post", "signed"},
		{"GET", "/app/reports", 200, "reports", "signed,mods"},
		{"GET", "/app/reports?deny=signed", 403, "denied by signed", "signed"},
		{"GET", "/app/reports?deny=mods", 403, "denied by mods", "signed,mods"},
		{"GET", "/app/r/7/admin", 200, "admin 7", "signed,admin"},
		{"POST", "/app/r/7/admin/upload", 200, "upload 7", "signed,admin"},
		{"GET", "/reports", 404, "404 page not found", ""},
		{"GET", "/app/posts", 405, "Method Not Allowed", ""},
	}
	for _, c := range cases {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(c.method, c.target, nil))
		ran := strings.Join(rec.Header().Values("X-Ran"), ",")
		if rec.Code != c.code || strings.TrimSpace(rec.Body.String()) != c.body || ran != c.ran {
			t.Errorf("%s %s: %d %q (ran %q); want %d %q (ran %q)", c.method, c.target, rec.Code, rec.Body.String(), ran, c.code, c.body, c.ran)
		}
	}
	// The site's body limit finds the route's own, through the group's middleware.
	h, _ := mux.Handler(httptest.NewRequest("POST", "/app/r/7/admin/upload", nil))
	if mb, isMax := h.(maxBody); !isMax || mb.n != 10 {
		t.Errorf("the upload route's handler is %T; want its MaxBody(10) outermost", h)
	}
}
