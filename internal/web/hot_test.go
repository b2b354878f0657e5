package web

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The hot lane answers a cached page exactly as the chain does (headers,
// conditional GET, metrics under the route, the access log line) and leaves
// to the chain every request it may not answer: a query, a cookie, a body,
// another method, a miss, an unregistered path.
func TestHotLane(t *testing.T) {
	var logs bytes.Buffer
	s := &Site{Log: slog.New(slog.NewTextHandler(&logs, nil))}
	pg := NewPage("application/json", []byte(`{"hello":"world"}`+strings.Repeat(" ", 200)), "")
	cached := map[string]bool{"": true, "abc": true}
	fn := func(_ context.Context, req HotRequest) (*Page, bool) {
		arg := req.Args[0]
		if arg == "boom" {
			panic("boom")
		}
		return pg, cached[arg]
	}
	s.Hot("GET /x/api/list", fn)
	s.Hot("GET /x/items/{id}", fn)
	s.Hot("GET /x/{$}", fn)
	var chained []string
	mux := http.NewServeMux()
	serve := func(w http.ResponseWriter, r *http.Request) {
		chained = append(chained, r.Method+" "+r.URL.String())
		pg.Serve(w, r)
	}
	for _, p := range []string{"/", "GET /x/api/list", "GET /x/items/{id}", "GET /x/{$}"} {
		mux.HandleFunc(p, serve)
	}
	reg := prometheus.NewRegistry()
	m := NewMetrics(reg)
	h := s.HotLane(Chain(mux, WithRequestID, Observe(s.Log, m), Recover(s), SecurityHeaders), m)

	do := func(method, target string, hdr ...string) *httptest.ResponseRecorder {
		t.Helper()
		r := httptest.NewRequest(method, target, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			r.Header.Set(hdr[i], hdr[i+1])
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	// Hits: nothing reaches the chain.
	for _, p := range []string{"/x/api/list", "/x/items/abc", "/x/"} {
		chained = nil
		w := do("GET", p, "Accept-Encoding", "gzip", "X-Request-Id", "req-1")
		if len(chained) != 0 || w.Code != 200 || w.Header().Get("Content-Encoding") != "gzip" ||
			w.Header().Get("X-Request-Id") != "req-1" || w.Header().Get("Etag") != pg.ETag {
			t.Errorf("%s: chained %v, %d, %v", p, chained, w.Code, w.Header())
		}
		if p == "/x/api/list" && w.Header().Get("Content-Security-Policy") != APICSP {
			t.Errorf("%s: API's CSP not set: %v", p, w.Header())
		}
		if p == "/x/" && (w.Header().Get("Content-Security-Policy") != CSP || w.Header().Get("Referrer-Policy") != "same-origin") {
			t.Errorf("%s: page's security headers not set: %v", p, w.Header())
		}
	}
	// The same answer as the chain's, header for header.
	viaLane, viaChain := do("GET", "/x/items/abc"), do("GET", "/x/items/abc", "Cookie", "a=b")
	if len(chained) != 1 {
		t.Fatalf("a request with a cookie did not go down the chain: %v", chained)
	}
	delete(viaChain.Header(), "X-Request-Id")
	for k := range viaChain.Header() {
		if viaLane.Header().Get(k) != viaChain.Header().Get(k) {
			t.Errorf("header %s: lane %q, chain %q", k, viaLane.Header().Get(k), viaChain.Header().Get(k))
		}
	}
	if len(viaLane.Header()) != len(viaChain.Header()) || !bytes.Equal(viaLane.Body.Bytes(), viaChain.Body.Bytes()) {
		t.Errorf("lane %v, chain %v", viaLane.Header(), viaChain.Header())
	}
	if w := do("GET", "/x/api/list", "If-None-Match", pg.ETag); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Errorf("conditional GET: %d, %d bytes", w.Code, w.Body.Len())
	}
	if w := do("HEAD", "/x/api/list"); w.Code != 200 || w.Body.Len() != 0 {
		t.Errorf("HEAD: %d, %d bytes", w.Code, w.Body.Len())
	}
	// Everything else goes down the chain.
	chained = nil
	do("GET", "/x/api/list?limit=5")
	do("GET", "/x/items/abc", "Cookie", "session=1")
	do("POST", "/x/api/list")
	do("GET", "/x/items/nope")     // a miss
	do("GET", "/x/items/abc/more") // not the last segment
	do("GET", "/x/items/")         // an empty segment
	do("GET", "/x/api/list/")      // not the exact path
	if len(chained) != 7 {
		t.Errorf("went down the chain: %q; want all 7", chained)
	}
	// A panic in the lookup is logged, and the chain answers.
	chained = nil
	if w := do("GET", "/x/items/boom"); w.Code != 200 || len(chained) != 1 {
		t.Errorf("panic in the lookup: %d, chained %v", w.Code, chained)
	}
	if !strings.Contains(logs.String(), "panic in a hot page's lookup") {
		t.Errorf("the panic was not logged: %s", logs.String())
	}
	// Metrics and the access log count the lane's answers with the chain's.
	if n := count(m.requests.WithLabelValues("GET /x/items/{id}", "200")); n != 6 {
		t.Errorf("GET /x/items/{id} 200: counted %v, want 6 (two lane hits, four chained)", n)
	}
	if n := count(m.requests.WithLabelValues("GET /x/api/list", "304")); n != 1 {
		t.Errorf("GET /x/api/list 304: counted %v, want 1", n)
	}
	if !strings.Contains(logs.String(), "id=req-1 method=GET path=/x/api/list status=200") {
		t.Errorf("no access log line for a lane hit:\n%s", logs.String())
	}
	if n := strings.Count(logs.String(), "msg=request"); n != 15 {
		t.Errorf("%d access log lines, want 15 (one per request):\n%s", n, logs.String())
	}
}

// A HotAll page is everyone's alike: the lane answers requests with
// cookies too, where a Hot page leaves them to the chain.
func TestHotLaneAllTakesCookies(t *testing.T) {
	s := &Site{Log: slog.New(slog.DiscardHandler)}
	pg := NewPage("text/html; charset=utf-8", []byte("<p>everyone's</p>"), "")
	fn := func(_ context.Context, req HotRequest) (*Page, bool) { return pg, req.Args[0] == "abc" }
	s.Hot("GET /visitors/{id}", fn)
	s.HotAll("GET /all/{id}", fn)
	var chained []string
	h := s.HotLane(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chained = append(chained, r.URL.Path)
		pg.Serve(w, r)
	}), nil)
	for _, p := range []string{"/all/abc", "/visitors/abc", "/all/nope"} {
		r := httptest.NewRequest("GET", p, nil)
		r.Header.Set("Cookie", "tutti_session=x")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != 200 || w.Body.String() != "<p>everyone's</p>" {
			t.Errorf("%s: %d %q", p, w.Code, w.Body)
		}
	}
	if !slices.Equal(chained, []string{"/visitors/abc", "/all/nope"}) {
		t.Errorf("went down the chain: %q; want the visitors' page and the miss", chained)
	}
}

// A pattern's wildcards are whole segments, passed in order; a HotQuery
// route gets the query, which every other route leaves to the chain.
func TestHotLaneWildcardsAndQuery(t *testing.T) {
	s := &Site{Log: slog.New(slog.DiscardHandler)}
	pg := NewPage("text/plain", []byte("results"), "")
	var seen []HotRequest
	s.HotQuery("GET /r/{slug}/results/{eid}", func(_ context.Context, req HotRequest) (*Page, bool) {
		seen = append(seen, req)
		return pg, req.Values().Get("page") != "9"
	})
	s.Hot("GET /r/{slug}", func(_ context.Context, req HotRequest) (*Page, bool) { return pg, true })
	chained := 0
	h := s.HotLane(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chained++
		pg.Serve(w, r)
	}), nil)
	get := func(target string) bool {
		t.Helper()
		before := chained
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", target, nil))
		return chained == before
	}
	if !get("/r/city-10k/results/7?q=%C3%A9mile&page=2") || !get("/r/city-10k/results/7") || !get("/r/city-10k") {
		t.Fatalf("hits went down the chain")
	}
	want := []HotRequest{
		{Args: [hotMaxArgs]string{"city-10k", "7"}, Query: "q=%C3%A9mile&page=2"},
		{Args: [hotMaxArgs]string{"city-10k", "7"}},
	}
	if !slices.Equal(seen, want) {
		t.Errorf("lookups saw %+v, want %+v", seen, want)
	}
	if v := seen[0].Values(); v.Get("q") != "émile" || v.Get("page") != "2" {
		t.Errorf("values %v", v)
	}
	for _, target := range []string{
		"/r/city-10k?page=2",           // a query on a route that takes none
		"/r/city-10k/results/7?page=9", // a miss
		"/r/city-10k/results",          // a segment short
		"/r/city-10k/results/7/names",  // a segment over
		"/r/city-10k/result/7",         // a literal differs
		"/r//results/7",                // an empty wildcard
		"/r/city-10k/results/",         // an empty last wildcard
		"/r/city-10k/results%2F7",      // one escaped segment: the mux sees two
	} {
		if get(target) {
			t.Errorf("%s: answered by the lane, want the chain", target)
		}
	}
	for _, bad := range []string{"GET /a/{x}{y}", "GET /a/x{y}", "GET /a/{x...}", "GET /a/{w}/{x}/{y}/{z}", "GET /a//{x}"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: registered, want a panic", bad)
				}
			}()
			s.Hot(bad, nil)
		}()
	}
}

func count(c prometheus.Counter) float64 {
	var m dto.Metric
	c.Write(&m)
	return m.GetCounter().GetValue()
}

// HotContext's context is the lookup's and, on a miss, the chain's: what a
// lookup leaves there reaches the handler; without it the chain gets the
// request as it came.
func TestHotContextReachesTheChain(t *testing.T) {
	type noteKey struct{}
	type note struct{ seen string }
	s := &Site{Log: slog.New(slog.DiscardHandler)}
	pg := NewPage("text/plain", []byte("hit"), "")
	s.Hot("GET /p/{id}", func(ctx context.Context, req HotRequest) (*Page, bool) {
		if n, _ := ctx.Value(noteKey{}).(*note); n != nil {
			n.seen = req.Args[0]
		}
		return pg, req.Args[0] == "cached"
	})
	var got string
	h := s.HotLane(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = "no note"
		if n, _ := r.Context().Value(noteKey{}).(*note); n != nil {
			got = "note of " + n.seen
		}
	}), nil)
	do := func(target string) {
		got = ""
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", target, nil))
	}
	do("/p/missing")
	if got != "no note" {
		t.Errorf("without HotContext: the chain saw %q; want no note", got)
	}
	s.HotContext = func(ctx context.Context) context.Context { return context.WithValue(ctx, noteKey{}, &note{}) }
	do("/p/missing")
	if got != "note of missing" {
		t.Errorf("a miss: the chain saw %q; want the lookup's note (of missing)", got)
	}
	do("/p/cached")
	if got != "" {
		t.Errorf("a hit reached the chain (%q)", got)
	}
}
