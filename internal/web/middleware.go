package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Middleware wraps a handler.
type Middleware func(http.Handler) http.Handler

// Chain applies ms so that the first is the outermost.
func Chain(h http.Handler, ms ...Middleware) http.Handler {
	for i := len(ms) - 1; i >= 0; i-- {
		h = ms[i](h)
	}
	return h
}

type ctxKey int

const requestIDKey ctxKey = iota

// RequestID returns the request's id (set by the RequestID middleware).
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// WithRequestID gives each request an id: the incoming X-Request-Id if sane
// (nginx sets one in cluster mode; it is echoed back), otherwise this
// process's random prefix and a counter (cheap, unique per process start),
// which the logs carry.
func WithRequestID(next http.Handler) http.Handler {
	b := make([]byte, 6)
	rand.Read(b)
	prefix := base64.RawURLEncoding.EncodeToString(b) + "-"
	var n atomic.Uint64
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if len(id) == 0 || len(id) > 64 {
			id = prefix + strconv.FormatUint(n.Add(1), 36)
		} else {
			w.Header()["X-Request-Id"] = []string{id}
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	size   int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.size += n
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush lets streaming handlers (Server-Sent Events) flush through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Observe logs each request (method, path, status, duration, request id) and
// records it in the metrics under its route pattern.
func Observe(log *slog.Logger, m *Metrics) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			sw := &statusWriter{ResponseWriter: w}
			next.ServeHTTP(sw, r)
			d := time.Since(start)
			if sw.status == 0 {
				sw.status = http.StatusOK
			}
			m.observe(r, sw.status, d)
			if log.Enabled(r.Context(), slog.LevelInfo) {
				log.LogAttrs(r.Context(), slog.LevelInfo, "request",
					slog.String("id", RequestID(r.Context())), slog.String("method", r.Method),
					slog.String("path", r.URL.Path), slog.Int("status", sw.status),
					slog.Int("bytes", sw.size), slog.Duration("took", d))
			}
		})
	}
}

// Recover turns a panic into a 500 page and logs it with the stack.
func Recover(s *Site) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if p := recover(); p != nil {
					if p == http.ErrAbortHandler {
						panic(p)
					}
					s.Log.Error("panic", "id", RequestID(r.Context()), "panic", p, "stack", string(debug.Stack()))
					releaseHeld(r)
					s.Error(w, r, errPanic)
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// CSP is the Content-Security-Policy of every page: only our own scripts and
// styles, no inline code, no framing.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"media-src 'self' blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; " +
	"form-action 'self'; frame-ancestors 'none'"

// APICSP is the Content-Security-Policy of API responses: JSON is data, never
// a document, so it may load nothing and be framed by no one.
const APICSP = "default-src 'none'; frame-ancestors 'none'"

// header is one response header, its key canonical and its value a shared
// slice: the headers below are set by direct map assignment on every request.
type header struct {
	key string
	val []string
}

// pageHeaders are the security headers of pages (and every response outside
// an API). Framing is refused by the CSP's frame-ancestors.
var pageHeaders = []header{
	{"Content-Security-Policy", []string{CSP}},
	{"X-Content-Type-Options", []string{"nosniff"}},
	{"Referrer-Policy", []string{"same-origin"}},
	{"Cross-Origin-Opener-Policy", []string{"same-origin"}},
}

// apiHeaders are those of responses under an app's /api/. The opener and
// referrer policies govern documents and what they load, so a JSON answer
// leaves them out (as OWASP's REST cheat sheet does): two fewer headers
// keep a cached answer's header map small on the hottest path.
var apiHeaders = []header{
	{"Content-Security-Policy", []string{APICSP}},
	{"X-Content-Type-Options", []string{"nosniff"}},
}

var hsts = []string{"max-age=31536000"}

// SecurityHeaders sets the headers every response carries: pageHeaders, or
// apiHeaders for paths of the form /APP/api/..., and HSTS behind TLS.
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hs := pageHeaders
		if IsAPI(r.URL.Path) {
			hs = apiHeaders
		}
		h := w.Header()
		for _, kv := range hs {
			h[kv.key] = kv.val
		}
		if r.TLS != nil {
			h["Strict-Transport-Security"] = hsts
		}
		next.ServeHTTP(w, r)
	})
}

// IsAPI reports whether path is under an app's JSON API: /APP/api/...
func IsAPI(path string) bool {
	if len(path) < 2 || path[0] != '/' {
		return false
	}
	i := strings.IndexByte(path[1:], '/')
	return i >= 0 && strings.HasPrefix(path[i+2:], "api/")
}

// LimitBody caps request bodies at n bytes; reading past it fails and the
// handler answers 413 (see IsTooLarge).
func LimitBody(n int64) Middleware { return LimitBodyWith(n, nil) }

// LimitBodyWith is LimitBody where a route of routes registered with MaxBody
// gets its own limit instead of n (looked up before the handler runs, so a
// Content-Length past the route's limit is refused unread).
func LimitBodyWith(n int64, routes *http.ServeMux) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body == nil || r.Body == http.NoBody {
				next.ServeHTTP(w, r)
				return
			}
			limit := n
			if routes != nil {
				if h, _ := routes.Handler(r); h != nil {
					if mb, ok := h.(maxBody); ok {
						limit = mb.n
					}
				}
			}
			if r.ContentLength > limit {
				w.Header().Set("Connection", "close")
				http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, limit)
			next.ServeHTTP(w, r)
		})
	}
}

// MaxBody gives the route h a request body limit of n bytes instead of the
// server's default. Use it where the route is registered, e.g. an upload:
//
//	mux.Handle("POST /account/settings", web.MaxBody(6<<20, http.HandlerFunc(s.settingsPost)))
//
// LimitBodyWith applies the limit; MaxBody itself only carries it, so it must
// be the handler given to the mux (the outermost wrapper).
func MaxBody(n int64, h http.Handler) http.Handler { return maxBody{n: n, h: h} }

type maxBody struct {
	n int64
	h http.Handler
}

func (m maxBody) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.h.ServeHTTP(w, r) }

// CrossOrigin refuses cross-origin unsafe requests (CSRF) using the browser's
// Sec-Fetch-Site and Origin headers.
func CrossOrigin(s *Site) Middleware {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Error(w, r, errCrossOrigin)
	}))
	return cop.Handler
}
