package roar_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// BenchmarkNewestCached measures a visitor's newest 200 (HTML page and JSON)
// from the cache, through the whole middleware stack, as a client with gzip
// asks for it.
func BenchmarkNewestCached(b *testing.B) {
	m := apptest.Start(b, "")
	t := &testing.T{}
	ann := user(t, m, "ann")
	for i := range 10 {
		ann.post("/roar/roars", map[string][]string{"body": {fmt.Sprint("bench roar ", i)}})
	}
	for _, path := range []string{"/roar/", "/roar/api/roars"} {
		b.Run(path, func(b *testing.B) {
			req := httptest.NewRequest("GET", path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			w := httptest.NewRecorder()
			m.Handler.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d", w.Code)
			}
			b.ReportAllocs()
			for b.Loop() {
				w := httptest.NewRecorder()
				m.Handler.ServeHTTP(w, req)
			}
		})
	}
}
