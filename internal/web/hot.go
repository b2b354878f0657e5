package web

import (
	"context"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// HotFunc returns the cached page a visitor gets at the route, if it is
// cached at the current version; arg is the route's last path segment (""
// for an exact route). It sees no request: what it returns must depend on
// the path alone (a visitor's request has no query and no cookie). It must
// be cheap and must not write: it runs ahead of net/http and the middleware
// chain (Front, HotLane), and on false the request goes on as usual.
type HotFunc func(ctx context.Context, arg string) (*Page, bool)

// hotRoute is one registered cached page.
type hotRoute struct {
	pattern string // as the mux names it: the metrics' route label
	prefix  string // for "GET /a/{x}": "/a/"; "" for an exact route
	fn      HotFunc
	ok      prometheus.Counter // code 200
	nm      prometheus.Counter // code 304
	latency prometheus.Observer
}

// Hot registers a cached public page in the hot lane: pattern is the page's
// mux pattern, "GET /path" or "GET /path/{arg}" (a last segment, passed to
// fn), or "GET /path/{$}". The page's handler on the mux stays the one that renders misses and
// serves everyone the lane does not: requests with a query, a cookie or a
// body. Register from an app's Routes, before the site serves.
func (s *Site) Hot(pattern string, fn HotFunc) {
	path, ok := strings.CutPrefix(pattern, "GET ")
	if !ok || !strings.HasPrefix(path, "/") {
		panic("web: hot pattern must be GET /path: " + pattern)
	}
	rt := &hotRoute{pattern: pattern, fn: fn}
	path = strings.TrimSuffix(path, "{$}") // "GET /a/{$}" is the exact path /a/
	if i := strings.IndexByte(path, '{'); i >= 0 {
		if !strings.HasSuffix(path, "}") || strings.Contains(path[i:], "/") || path[i-1] != '/' {
			panic("web: a hot pattern's only wildcard is its last segment: " + pattern)
		}
		rt.prefix = path[:i]
		s.hotPrefix = append(s.hotPrefix, rt)
		return
	}
	if s.hotExact == nil {
		s.hotExact = map[string]*hotRoute{}
	}
	s.hotExact[path] = rt
}

// HotLane serves the registered cached pages ahead of next, the site's
// middleware chain, to visitors: a GET or HEAD with no query and no cookie
// (a signed-in user or a chosen preference goes down the chain). A hit is
// answered as the chain would answer it, the same headers, metrics, access
// log line and panic recovery, without the chain's allocations, context
// values and routing: on one core that is most of a small cached page's cost.
func (s *Site) HotLane(next http.Handler, m *Metrics) http.Handler {
	if len(s.hotExact) == 0 && len(s.hotPrefix) == 0 {
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
		if (r.Method != http.MethodGet && r.Method != http.MethodHead) || r.URL.RawQuery != "" ||
			len(r.Header["Cookie"]) > 0 || r.ContentLength != 0 {
			next.ServeHTTP(w, r)
			return
		}
		rt, arg := s.hotMatch(r.URL.Path)
		if rt == nil {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		pg, ok := s.hotFind(r.Context(), rt, arg)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		s.serveHot(w, r, rt, pg, start, ids)
	})
}

func (s *Site) hotRoutes() []*hotRoute {
	rts := append([]*hotRoute(nil), s.hotPrefix...)
	for _, rt := range s.hotExact {
		rts = append(rts, rt)
	}
	return rts
}

// hotMatch finds path's route: an exact one, else a prefix one whose last
// segment is non-empty and has no slash.
func (s *Site) hotMatch(path string) (*hotRoute, string) {
	if rt := s.hotExact[path]; rt != nil {
		return rt, ""
	}
	for _, rt := range s.hotPrefix {
		if arg, ok := strings.CutPrefix(path, rt.prefix); ok && arg != "" && strings.IndexByte(arg, '/') < 0 {
			return rt, arg
		}
	}
	return nil, ""
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
func (s *Site) hotFind(ctx context.Context, rt *hotRoute, arg string) (pg *Page, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			s.Log.Error("panic in a hot page's lookup", "route", rt.pattern, "panic", p, "stack", string(debug.Stack()))
			pg, ok = nil, false
		}
	}()
	return rt.fn(ctx, arg)
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
