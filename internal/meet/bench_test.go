package meet_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// BenchmarkPollPageCached measures a cached poll page through the whole
// middleware stack, as a browser with gzip asks for it.
func BenchmarkPollPageCached(b *testing.B) {
	m := apptest.Start(b, "")
	t := &testing.T{}
	w0 := apptest.NewWeb(b, m)
	s := &site{Web: w0, t: t, m: m, c: w0.Client, base: w0.Base}
	pub, _ := s.createPoll("Bench")
	s.join(pub, "Ada")
	req := httptest.NewRequest("GET", pub, nil)
	req.Header.Set("Accept-Encoding", "gzip")
	w := httptest.NewRecorder()
	m.Handler.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("status %d", w.Code)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w := httptest.NewRecorder()
		m.Handler.ServeHTTP(w, req)
	}
}
