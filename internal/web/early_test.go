package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// Early patterns go ahead of the full chain; EarlyVisitors ones only for
// requests without a cookie.
func TestEarlyLane(t *testing.T) {
	s := &Site{}
	answer := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(name)) })
	}
	s.Early("GET /static/", answer("early"))
	s.EarlyVisitors("GET /results/{id}", answer("early"))
	h := s.EarlyLane(answer("full"))
	for _, c := range []struct {
		path, cookie, want string
	}{
		{"/static/a.css", "", "early"},
		{"/static/a.css", "tutti_session=x", "early"},
		{"/results/7", "", "early"},
		{"/results/7", "tutti_session=x", "full"},
		{"/other", "", "full"},
	} {
		req := httptest.NewRequest("GET", c.path, nil)
		if c.cookie != "" {
			req.Header.Set("Cookie", c.cookie)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Body.String(); got != c.want {
			t.Errorf("%s with cookie %q: served by %s; want %s", c.path, c.cookie, got, c.want)
		}
	}
}
