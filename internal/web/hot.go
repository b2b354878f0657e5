package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// HotFunc returns the cached page a visitor gets at the route, if it is
// cached at the current version. It sees no request, only HotRequest: what
// it returns must depend on the path's wildcards (and, for a route
// registered by HotQuery, the query) alone: a visitor's request has no
// cookie (but on a HotAll route, whose page is everyone's). It must be
// cheap and must not write: it runs ahead of net/http and the middleware
// chain (Front, HotLane), and on false the request goes on as usual.
type HotFunc func(ctx context.Context, req HotRequest) (*Page, bool)

// hotMaxArgs bounds a hot pattern's wildcards.
const hotMaxArgs = 3

// HotRequest is what a hot page's lookup sees of a visitor's request.
type HotRequest struct {
	Args  [hotMaxArgs]string // the pattern's wildcards in order ("" past the last)
	Query string             // the raw query: "" but on a HotQuery route
}

// Values is the query parsed as the chain's handler reads it
// (r.URL.Query()).
func (h HotRequest) Values() url.Values {
	v, _ := url.ParseQuery(h.Query)
	return v
}

// hotWild marks a wildcard among a hot route's segments.
const hotWild = "{}"

// hotRoute is one registered cached page.
type hotRoute struct {
	pattern string   // as the mux names it: the metrics' route label
	segs    []string // the path's segments, hotWild for a wildcard; nil for an exact route
	query   bool     // a request with a query is the route's too (HotQuery)
	all     bool     // requests with cookies are the route's too (HotAll)
	fn      HotFunc
	ok      prometheus.Counter // code 200
	nm      prometheus.Counter // code 304
	latency prometheus.Observer
}

// Hot registers a cached public page in the hot lane: pattern is the page's
// mux pattern, "GET /path", "GET /path/{$}", or with whole segments as
// wildcards ("GET /a/{x}/b/{y}", passed to fn in order). The mux must route
// every path the pattern matches to the page's handler (where a more
// specific mux pattern overlaps, "GET /a/{x}/b/latest", fn must refuse that
// path: the lane takes the first hot pattern that matches, in the order
// registered, not the most specific), which stays the one
// that renders misses and serves everyone the lane does not: requests with
// a query, a cookie or a body. Register from an app's Routes, before the
// site serves.
func (s *Site) Hot(pattern string, fn HotFunc) { s.hot(pattern, fn, false, false) }

// HotQuery is Hot for a page that depends on its query as well: fn gets the
// raw query, and reads it as the handler does (HotRequest.Values).
func (s *Site) HotQuery(pattern string, fn HotFunc) { s.hot(pattern, fn, true, false) }

// HotAll is Hot for a page that everyone gets alike, signed in or not,
// whatever cookies they send: its handler is registered Early (not
// EarlyVisitors), ahead of sessions, and reads no cookie. The lane answers
// requests with cookies too: a signed-in runner's race page and the style
// sheets after it stay on the front, where a cookie would hand each of a
// rush's connections to net/http.
func (s *Site) HotAll(pattern string, fn HotFunc) { s.hot(pattern, fn, false, true) }

func (s *Site) hot(pattern string, fn HotFunc, query, all bool) {
	path, ok := strings.CutPrefix(pattern, "GET ")
	if !ok || !strings.HasPrefix(path, "/") {
		panic("web: hot pattern must be GET /path: " + pattern)
	}
	rt := &hotRoute{pattern: pattern, fn: fn, query: query, all: all}
	path = strings.TrimSuffix(path, "{$}") // "GET /a/{$}" is the exact path /a/
	if !strings.Contains(path, "{") {
		if s.hotExact == nil {
			s.hotExact = map[string]*hotRoute{}
		}
		s.hotExact[path] = rt
		return
	}
	wild := 0
	for seg := range strings.SplitSeq(path[1:], "/") {
		switch {
		case len(seg) > 2 && seg[0] == '{' && seg[len(seg)-1] == '}' && !strings.ContainsAny(seg[1:len(seg)-1], "{}.$"):
			rt.segs = append(rt.segs, hotWild)
			wild++
		case seg != "" && !strings.ContainsAny(seg, "{}"):
			rt.segs = append(rt.segs, seg)
		default:
			panic("web: a hot pattern's wildcards are whole segments: " + pattern)
		}
	}
	if wild > hotMaxArgs {
		panic("web: too many wildcards in a hot pattern: " + pattern)
	}
	s.hotWild = append(s.hotWild, rt)
}

// HotLane serves the registered cached pages ahead of next, the site's
// middleware chain, to visitors: a GET or HEAD with no query and no cookie
// (a signed-in user or a chosen preference goes down the chain, but on a
// HotAll route). A hit is answered as the chain would answer it, the same
// headers, metrics, access log line and panic recovery, without the chain's
// allocations, context values and routing: on one core that is most of a
// small cached page's cost.
func (s *Site) HotLane(next http.Handler, m *Metrics) http.Handler {
	if len(s.hotExact) == 0 && len(s.hotWild) == 0 {
		return next
	}
	for _, rt := range s.hotRoutes() {
		if m != nil {
			rt.ok = m.requests.WithLabelValues(rt.pattern, "200")
			rt.nm = m.requests.WithLabelValues(rt.pattern, "304")
			rt.latency = m.latency.WithLabelValues(rt.pattern)
		}
	}
	ids := newRequestIDs()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An escaped path (RawPath set: a %2F in a segment) is the mux's
		// to judge, segment by escaped segment.
		if (r.Method != http.MethodGet && r.Method != http.MethodHead) ||
			r.ContentLength != 0 || r.URL.RawPath != "" {
			next.ServeHTTP(w, r)
			return
		}
		rt, req := s.hotMatch(r.URL.Path, r.URL.RawQuery)
		if rt == nil || (!rt.all && len(r.Header["Cookie"]) > 0) {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		ctx := r.Context()
		if s.HotContext != nil {
			ctx = s.HotContext(ctx)
		}
		pg, ok := s.hotFind(ctx, rt, req)
		if !ok {
			if s.HotContext != nil {
				r = r.WithContext(ctx)
			}
			next.ServeHTTP(w, r)
			return
		}
		s.serveHot(w, r, rt, pg, start, ids)
	})
}

func (s *Site) hotRoutes() []*hotRoute {
	rts := append([]*hotRoute(nil), s.hotWild...)
	for _, rt := range s.hotExact {
		rts = append(rts, rt)
	}
	return rts
}

// hotMatch finds the route of path and query: an exact one, else the
// first wildcard one (in the order registered) whose literal segments are
// path's and whose wildcards match non-empty segments. A query is only a
// HotQuery route's.
func (s *Site) hotMatch(path, query string) (*hotRoute, HotRequest) {
	rt, req := s.hotExact[path], HotRequest{}
	if rt == nil {
		for _, w := range s.hotWild {
			var ok bool
			if req, ok = w.match(path); ok {
				rt = w
				break
			}
		}
	}
	if rt == nil || (query != "" && !rt.query) {
		return nil, HotRequest{}
	}
	req.Query = query
	return rt, req
}

// match matches path against the route's segments.
func (rt *hotRoute) match(path string) (req HotRequest, ok bool) {
	rest, ok := strings.CutPrefix(path, "/")
	if !ok {
		return req, false
	}
	n := 0
	for i, seg := range rt.segs {
		part := rest
		if i < len(rt.segs)-1 {
			if part, rest, ok = strings.Cut(rest, "/"); !ok {
				return req, false
			}
		} else if strings.IndexByte(part, '/') >= 0 {
			return req, false
		}
		switch {
		case seg != hotWild:
			if part != seg {
				return req, false
			}
		case part == "":
			return req, false
		default:
			req.Args[n] = part
			n++
		}
	}
	return req, true
}

// observe counts an answer of the route (200 or 304) in the metrics, as
// Observe would; without metrics, nothing.
func (rt *hotRoute) observe(status int, d time.Duration) {
	if rt.ok == nil {
		return
	}
	if status == http.StatusNotModified {
		rt.nm.Inc()
	} else {
		rt.ok.Inc()
	}
	rt.latency.Observe(d.Seconds())
}

// hotFind calls rt's HotFunc; a panic in it is logged and leaves the request
// to the chain.
func (s *Site) hotFind(ctx context.Context, rt *hotRoute, req HotRequest) (pg *Page, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			s.Log.Error("panic in a hot page's lookup", "route", rt.pattern, "panic", p, "stack", string(debug.Stack()))
			pg, ok = nil, false
		}
	}()
	return rt.fn(ctx, req)
}

// serveHot answers with pg as the chain would: SecurityHeaders' headers, the
// incoming request id echoed, Recover's 500 on a panic, Observe's metrics
// and access log line.
func (s *Site) serveHot(w http.ResponseWriter, r *http.Request, rt *hotRoute, pg *Page, start time.Time, ids *requestIDs) {
	h := w.Header()
	setSecurityHeaders(h, r)
	id, echo := incomingID(r)
	if echo {
		h["X-Request-Id"] = []string{id}
	}
	sw := statusWriter{ResponseWriter: w}
	defer func() {
		if p := recover(); p != nil {
			if id == "" {
				id = ids.next()
			}
			s.panicked(w, r.WithContext(ContextWithRequestID(r.Context(), id)), p)
		}
	}()
	pg.Serve(&sw, r)
	d := time.Since(start)
	rt.observe(sw.status, d)
	if s.Log.Enabled(r.Context(), slog.LevelInfo) {
		if id == "" {
			id = ids.next()
		}
		logRequest(s.Log, r, id, &sw, d)
	}
}
