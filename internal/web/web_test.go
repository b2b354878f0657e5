package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tutti-dev/tutti/internal/errs"
)

func TestPageRoundTripAndConditionalGET(t *testing.T) {
	body := []byte(strings.Repeat("<p>hello</p>", 200))
	p := NewPage("text/html; charset=utf-8", body, `"v1"`)
	enc := p.Encode()
	if len(enc) != cap(enc) {
		t.Errorf("encoded page: length %d, capacity %d; a cache would hold the spare bytes", len(enc), cap(enc))
	}
	q, err := DecodePage(enc)
	if err != nil || q.ETag != `"v1"` || q.Body != nil || q.Size != len(body) || !bytes.Equal(q.Gzip, p.Gzip) {
		t.Fatalf("round trip lost data (or kept the identity bytes beside the gzip ones): %v", err)
	}
	if b := q.Bytes(); !bytes.Equal(b, body) {
		t.Fatalf("Bytes: %d bytes, want the body's %d", len(b), len(body))
	}
	if _, err := DecodePage([]byte{200, 1}); err == nil {
		t.Error("corrupt bytes decoded without error")
	}
	// A body gzip does not shrink is kept as it is.
	tiny := NewPage("text/plain", []byte("ok"), "")
	if tiny.Gzip != nil || string(tiny.Body) != "ok" {
		t.Errorf("tiny page: gzip %d bytes, body %q", len(tiny.Gzip), tiny.Body)
	}
	if tq, err := DecodePage(tiny.Encode()); err != nil || string(tq.Body) != "ok" || tq.Gzip != nil || tq.Size != 2 {
		t.Errorf("tiny page round trip: %+v, %v", tq, err)
	}
	// A page keeping both (a static file) is stored as its gzip bytes
	// alone; stored bytes holding both are corrupt.
	both := &Page{ETag: `"x"`, Body: body, Gzip: p.Gzip, Size: len(body)}
	if bq, err := DecodePage(both.Encode()); err != nil || bq.Body != nil || !bytes.Equal(bq.Gzip, p.Gzip) {
		t.Errorf("a page keeping both encodings, stored: %v; want its gzip bytes alone", err)
	}
	raw := binary.AppendUvarint(nil, uint64(len(body)))
	for _, f := range [][]byte{[]byte(`"x"`), nil, body, p.Gzip} {
		raw = binary.AppendUvarint(raw, uint64(len(f)))
		raw = append(raw, f...)
	}
	if _, err := DecodePage(raw); err == nil {
		t.Error("stored bytes with both encodings decoded: only one is ever stored")
	}
	// gzip when accepted, and the bytes decompress to the body.
	r := httptest.NewRequest("GET", "/", nil)
	r.Header.Set("Accept-Encoding", "br, gzip;q=0.8")
	w := httptest.NewRecorder()
	q.Serve(w, r)
	if w.Header().Get("Content-Encoding") != "gzip" {
		t.Fatalf("no gzip for a client that accepts it")
	}
	zr, _ := gzip.NewReader(w.Body)
	plain, _ := io.ReadAll(zr)
	if !bytes.Equal(plain, body) {
		t.Error("gzip bytes do not decompress to the body")
	}
	// identity when refused.
	r.Header.Set("Accept-Encoding", "gzip;q=0")
	w = httptest.NewRecorder()
	q.Serve(w, r)
	if w.Header().Get("Content-Encoding") != "" || !bytes.Equal(w.Body.Bytes(), body) ||
		w.Header().Get("Content-Length") != fmt.Sprint(len(body)) {
		t.Errorf("a client that refused gzip: encoding %q, %d bytes, Content-Length %s",
			w.Header().Get("Content-Encoding"), w.Body.Len(), w.Header().Get("Content-Length"))
	}
	// 304 on a matching If-None-Match, also in a list and weak.
	for _, inm := range []string{`"v1"`, `"x", W/"v1"`, `*`} {
		r.Header.Set("If-None-Match", inm)
		w = httptest.NewRecorder()
		q.Serve(w, r)
		if w.Code != http.StatusNotModified || w.Body.Len() != 0 {
			t.Errorf("If-None-Match %s: %d; want 304 without body", inm, w.Code)
		}
	}
	r.Header.Set("If-None-Match", `"v0"`)
	w = httptest.NewRecorder()
	q.Serve(w, r)
	if w.Code != 200 {
		t.Errorf("stale If-None-Match: %d; want 200", w.Code)
	}
}

func TestAssetsAreHashedAndImmutable(t *testing.T) {
	a, err := NewAssets(fstest.MapFS{"app.css": {Data: []byte("body{color:red}")}}, "/static/")
	if err != nil {
		t.Fatal(err)
	}
	u := a.URL("app.css")
	if !strings.HasPrefix(u, "/static/app.") || !strings.HasSuffix(u, ".css") || u == "/static/app.css" {
		t.Fatalf("URL = %q; want a hashed name", u)
	}
	w := httptest.NewRecorder()
	a.ServeHTTP(w, httptest.NewRequest("GET", u, nil))
	if w.Code != 200 || !strings.Contains(w.Header().Get("Cache-Control"), "immutable") || w.Body.String() != "body{color:red}" {
		t.Errorf("serve: %d %q %q", w.Code, w.Header().Get("Cache-Control"), w.Body.String())
	}
	w = httptest.NewRecorder()
	a.ServeHTTP(w, httptest.NewRequest("GET", "/static/app.css", nil))
	if w.Code != 404 {
		t.Errorf("unhashed name: %d; want 404", w.Code)
	}
}

func TestErrorMapsKindsAndHidesInternals(t *testing.T) {
	var logs bytes.Buffer
	assets, _ := NewAssets(StaticFS(), "/static/")
	s := &Site{Assets: assets, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	cases := []struct {
		err    error
		status int
		json   bool
	}{
		{errs.ErrNotFound, 404, false},
		{errs.Fields(map[string]string{"title": "Give it a title."}), 422, true},
		{errs.E(errs.Conflict, "Locked."), 409, false},
		{&http.MaxBytesError{Limit: 10}, 413, true},
		{errors.New("db password is hunter2"), 500, false},
	}
	for _, c := range cases {
		r := httptest.NewRequest("POST", "/x", nil)
		if c.json {
			r.Header.Set("Accept", "application/json")
		}
		w := httptest.NewRecorder()
		s.Error(w, r, c.err)
		if w.Code != c.status {
			t.Errorf("%v: %d; want %d", c.err, w.Code, c.status)
		}
		if strings.Contains(w.Body.String(), "hunter2") {
			t.Errorf("internal error text leaked to the user")
		}
		if c.json && !strings.Contains(w.Header().Get("Content-Type"), "problem+json") {
			t.Errorf("%v: content type %q; want problem+json", c.err, w.Header().Get("Content-Type"))
		}
	}
	if !strings.Contains(logs.String(), "hunter2") {
		t.Errorf("internal error was not logged")
	}
}

func TestErrorForAGoneClientIsNotLogged(t *testing.T) {
	var logs bytes.Buffer
	assets, _ := NewAssets(StaticFS(), "/static/")
	s := &Site{Assets: assets, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequest("POST", "/x", nil).WithContext(ctx)
	w := httptest.NewRecorder()
	s.Error(w, r, fmt.Errorf("db: begin: %w", context.Canceled))
	if w.Code != 499 || logs.Len() != 0 {
		t.Errorf("status %d, logged %q; want 499 and nothing at info", w.Code, logs.String())
	}
}

func TestSecurityHeadersForPagesAndAPIs(t *testing.T) {
	h := SecurityHeaders(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	for path, api := range map[string]bool{
		"/roar/": false, "/roar/api/roars": true, "/meet/api/polls/1": true, "/roar/api": false,
		"/": false, "/api/x": false, "/roar/apis/x": false, "/roar/u/api/x": false,
	} {
		if IsAPI(path) != api {
			t.Errorf("IsAPI(%q) = %v, want %v", path, !api, api)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		got := w.Header()
		if got.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(got.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("%s: headers %v", path, got)
		}
		if page := got.Get("Cross-Origin-Opener-Policy") == "same-origin" && strings.Contains(got.Get("Content-Security-Policy"), "script-src 'self'"); page == api {
			t.Errorf("%s: page headers %v, want %v", path, page, !api)
		}
	}
}

func TestAcceptsGzip(t *testing.T) {
	for _, c := range []struct {
		headers []string
		want    bool
	}{
		{nil, false}, {[]string{""}, false}, {[]string{"gzip"}, true}, {[]string{"gzip, deflate, br"}, true},
		{[]string{"br,gzip"}, true}, {[]string{"br", "gzip"}, true}, {[]string{"deflate, br"}, false},
		{[]string{"gzip;q=0"}, false}, {[]string{"gzip; q = 0"}, false}, {[]string{"gzip;q=0.5"}, true},
		{[]string{"br;q=1, gzip;q=0.0"}, false}, {[]string{"gzip;q=x"}, false}, {[]string{"xgzip"}, false},
		{[]string{"*"}, false}, {[]string{"GZIP"}, true}, {[]string{"gzip;Q=0"}, false},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header["Accept-Encoding"] = c.headers
		if got := acceptsGzip(r); got != c.want {
			t.Errorf("acceptsGzip(%q) = %v, want %v", c.headers, got, c.want)
		}
	}
}

func TestWantsJSON(t *testing.T) {
	for _, tc := range []struct {
		method, path, ctype, accept string
		want                        bool
	}{
		{"POST", "/roar/u/api/follow", "application/x-www-form-urlencoded", "text/html", false},
		{"GET", "/roar/u/api", "", "", false},
		{"GET", "/roar/tags/api/", "", "", false},
		{"GET", "/roar/api/roars", "", "", true},
		{"POST", "/roar/api/roars", "application/json", "", true},
		{"POST", "/roar/roars", "application/json", "", true},
		{"POST", "/roar/r/1/like", "application/x-www-form-urlencoded", "application/json", true},
		{"GET", "/roar/", "", "text/html,application/json;q=0.9", false},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		if tc.ctype != "" {
			r.Header.Set("Content-Type", tc.ctype)
		}
		if tc.accept != "" {
			r.Header.Set("Accept", tc.accept)
		}
		if got := WantsJSON(r); got != tc.want {
			t.Errorf("WantsJSON(%s %s, %q, %q) = %v; want %v", tc.method, tc.path, tc.ctype, tc.accept, got, tc.want)
		}
	}
}

// Body limits are per route: MaxBody where a route is registered, the
// default for every other route.
func TestMaxBodyPerRoute(t *testing.T) {
	read := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		fmt.Fprint(w, n)
	})
	mux := http.NewServeMux()
	mux.Handle("POST /upload", MaxBody(3000, read))
	mux.Handle("POST /tiny", MaxBody(10, read))
	mux.Handle("POST /form", read)
	assets, _ := NewAssets(StaticFS(), "/static/")
	h := (&Site{Assets: assets, Log: slog.New(slog.DiscardHandler)}).LimitBody(1000, mux)(mux)
	for _, tc := range []struct {
		path    string
		size    int
		chunked bool
		want    int
	}{
		{"/form", 1000, false, 200},
		{"/form", 1001, false, 413},
		{"/form", 1001, true, 413},
		{"/upload", 3000, false, 200},
		{"/upload", 3000, true, 200},
		{"/upload", 3001, false, 413},
		{"/upload", 3001, true, 413},
		{"/tiny", 11, false, 413},
		{"/tiny", 11, true, 413},
		{"/nowhere", 1001, false, 413},
	} {
		r := httptest.NewRequest("POST", tc.path, strings.NewReader(strings.Repeat("x", tc.size)))
		if tc.chunked {
			r.ContentLength = -1
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("POST %s with %d bytes (chunked %v): %d; want %d", tc.path, tc.size, tc.chunked, w.Code, tc.want)
		}
		if tc.want == 200 && w.Body.String() != fmt.Sprint(tc.size) {
			t.Errorf("POST %s read %s bytes; want %d", tc.path, w.Body.String(), tc.size)
		}
	}
}
