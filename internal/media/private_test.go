package media_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/media"
)

// ServePrivate answers as http.ServeContent (ranges, conditional requests,
// 206, 304, 416) with private caching only, Vary: Cookie, the type from the
// key and nosniff, on both storages; the public handler refuses the key.
func TestServePrivate(t *testing.T) {
	for name, st := range storages(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			key := files.NewKey(media.PrivatePrefix+"tracks", ".mp3")
			content := []byte("0123456789abcdefghij")
			if err := st.Put(ctx, key, bytes.NewReader(content), "audio/mpeg"); err != nil {
				t.Fatal(err)
			}
			h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { media.ServePrivate(w, r, st, key) })
			get := func(hdr map[string]string) *httptest.ResponseRecorder {
				req := httptest.NewRequest("GET", "/music/t/1/audio", nil)
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			rec := get(nil)
			if rec.Code != 200 || rec.Body.String() != string(content) {
				t.Fatalf("GET: %d %q", rec.Code, rec.Body)
			}
			hd := rec.Header()
			cc := hd.Get("Cache-Control")
			if !strings.HasPrefix(cc, "private") || strings.Contains(cc, "public") || hd.Get("Vary") != "Cookie" ||
				hd.Get("X-Content-Type-Options") != "nosniff" || hd.Get("Content-Type") != "audio/mpeg" || hd.Get("Accept-Ranges") != "bytes" {
				t.Errorf("headers %v; want private caching, Vary Cookie, nosniff, audio/mpeg, ranges", hd)
			}
			etag, mod := hd.Get("ETag"), hd.Get("Last-Modified")
			if rec := get(map[string]string{"Range": "bytes=2-5"}); rec.Code != 206 || rec.Body.String() != "2345" ||
				rec.Header().Get("Content-Range") != "bytes 2-5/20" {
				t.Errorf("range 2-5: %d %q %q; want 206 2345", rec.Code, rec.Body, rec.Header().Get("Content-Range"))
			}
			if rec := get(map[string]string{"Range": "bytes=-3"}); rec.Code != 206 || rec.Body.String() != "hij" {
				t.Errorf("range -3: %d %q; want 206 hij", rec.Code, rec.Body)
			}
			if rec := get(map[string]string{"Range": "bytes=100-"}); rec.Code != http.StatusRequestedRangeNotSatisfiable ||
				rec.Header().Get("Content-Range") != "bytes */20" {
				t.Errorf("range past the end: %d %v; want 416", rec.Code, rec.Header())
			}
			if rec := get(map[string]string{"If-None-Match": etag}); rec.Code != 304 || rec.Body.Len() != 0 {
				t.Errorf("If-None-Match %s: %d; want 304", etag, rec.Code)
			}
			if rec := get(map[string]string{"If-Modified-Since": mod}); mod == "" || rec.Code != 304 {
				t.Errorf("If-Modified-Since %q: %d; want 304", mod, rec.Code)
			}
			old := time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)
			if rec := get(map[string]string{"If-Modified-Since": old}); rec.Code != 200 {
				t.Errorf("If-Modified-Since two days ago: %d; want 200", rec.Code)
			}
			if rec := get(map[string]string{"If-None-Match": `"other"`, "Range": "bytes=0-0"}); rec.Code != 206 || rec.Body.String() != "0" {
				t.Errorf("another ETag with a range: %d %q; want 206", rec.Code, rec.Body)
			}
			// Missing, and refused by the public handler.
			rec = httptest.NewRecorder()
			media.ServePrivate(rec, httptest.NewRequest("GET", "/x", nil), st, media.PrivatePrefix+"tracks/missing.mp3")
			if rec.Code != 404 {
				t.Errorf("missing: %d; want 404", rec.Code)
			}
			rec = httptest.NewRecorder()
			files.Handler(st, files.Prefix).ServeHTTP(rec, httptest.NewRequest("GET", files.Prefix+key, nil))
			if rec.Code != 404 || strings.Contains(rec.Body.String(), "0123") {
				t.Errorf("public handler on a private key: %d; want 404", rec.Code)
			}
		})
	}
}
