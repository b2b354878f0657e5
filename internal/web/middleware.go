package web

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
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

// ContextWithRequestID returns ctx carrying id as its request id (background
// work carries the id of the request that asked for it).
func ContextWithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey, id)
}

// WithRequestID gives each request an id: the incoming X-Request-Id if sane
// (nginx sets one in cluster mode; it is echoed back), otherwise this
// process's random prefix and a counter (cheap, unique per process start),
// which the logs carry.
func WithRequestID(next http.Handler) http.Handler {
	ids := newRequestIDs()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, echo := incomingID(r)
		if echo {
			w.Header()["X-Request-Id"] = []string{id}
		} else {
			id = ids.next()
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

// requestIDs makes request ids: a random prefix and a counter.
type requestIDs struct {
	prefix string
	n      atomic.Uint64
}

func newRequestIDs() *requestIDs {
	b := make([]byte, 6)
	rand.Read(b)
	return &requestIDs{prefix: base64.RawURLEncoding.EncodeToString(b) + "-"}
}

// incomingID is r's X-Request-Id and true if it is sane (1 to 64 bytes: to
// be echoed, and, from a trusted proxy, a request key), else "" and false.
func incomingID(r *http.Request) (string, bool) {
	id := r.Header.Get("X-Request-Id")
	if len(id) == 0 || len(id) > 64 {
		return "", false
	}
	return id, true
}

// next returns a new id.
func (ids *requestIDs) next() string { return ids.prefix + strconv.FormatUint(ids.n.Add(1), 36) }

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
				logRequest(log, r, RequestID(r.Context()), sw, d)
			}
		})
	}
}

// logRequest writes a request's access log line.
func logRequest(log *slog.Logger, r *http.Request, id string, sw *statusWriter, d time.Duration) {
	logLine(r.Context(), log, id, r.Method, r.URL.Path, sw.status, sw.size, d)
}

// logLine is the access log's line for one request.
func logLine(ctx context.Context, log *slog.Logger, id, method, path string, status, size int, d time.Duration) {
	log.LogAttrs(ctx, slog.LevelInfo, "request",
		slog.String("id", id), slog.String("method", method),
		slog.String("path", path), slog.Int("status", status),
		slog.Int("bytes", size), slog.Duration("took", d))
}

// Recover turns a panic into a 500 page and logs it with the stack.
func Recover(s *Site) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			defer func() {
				if p := recover(); p != nil {
					s.panicked(w, r, p)
				}
			}()
			next.ServeHTTP(w, r)
		})
	}
}

// panicked answers a handler's panic p: logged with its stack, what the
// connection holds released, a 500 page. http.ErrAbortHandler goes on up.
func (s *Site) panicked(w http.ResponseWriter, r *http.Request, p any) {
	if p == http.ErrAbortHandler {
		panic(p)
	}
	s.Log.Error("panic", "id", RequestID(r.Context()), "panic", p, "stack", string(debug.Stack()))
	releaseHeld(r)
	s.Error(w, r, errPanic)
}

// CSP is the Content-Security-Policy of every page: only our own scripts and
// styles, no inline code, no framing of our pages, and frames only of the
// music players in PlayerFrames.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"media-src 'self' blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; " +
	"form-action 'self'; frame-src " + PlayerFrames + "; frame-ancestors 'none'"

// PlayerFrames are the origins whose players a page may embed in an
// iframe: the music sites' embeddable players (music's posts show a shared
// link as its site's player, made from the URL alone). It is part of every
// page's CSP, so that a cached page, served by the hot lane with the
// site's headers, plays too.
const PlayerFrames = "https://www.youtube-nocookie.com https://w.soundcloud.com https://open.spotify.com " +
	"https://embed.music.apple.com https://bandcamp.com"

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
		setSecurityHeaders(w.Header(), r)
		next.ServeHTTP(w, r)
	})
}

// setSecurityHeaders sets r's response's security headers in h.
func setSecurityHeaders(h http.Header, r *http.Request) {
	hs := pageHeaders
	if IsAPI(r.URL.Path) {
		hs = apiHeaders
	}
	for _, kv := range hs {
		h[kv.key] = kv.val
	}
	if IsHTTPS(r) {
		h["Strict-Transport-Security"] = hsts
	}
}

// IsAPI reports whether path is under an app's JSON API: /APP/api/...
func IsAPI(path string) bool {
	if len(path) < 2 || path[0] != '/' {
		return false
	}
	i := strings.IndexByte(path[1:], '/')
	return i >= 0 && strings.HasPrefix(path[i+2:], "api/")
}

// LimitBody caps request bodies at n bytes, or a route of routes registered
// with MaxBody at its own limit (looked up before the handler runs, so a
// Content-Length past the route's limit is refused unread, with the site's
// 413 page or problem details for the API); reading past it fails and the
// handler answers 413 (see IsTooLarge).
func (s *Site) LimitBody(n int64, routes *http.ServeMux) Middleware {
	return limitBody(n, routes, func(w http.ResponseWriter, r *http.Request) {
		s.Error(w, r, errTooLarge)
	})
}

var errTooLarge = errs.E(errs.TooLarge, "The request is too large.")

// Lingering close: after a 413 the rest of the body is read and thrown
// away, at most lingerBytes for at most lingerTime, before the connection
// closes, as nginx does. A client that writes its whole body before reading
// (Python's urllib, many others) then reads the 413; closing with its data
// unread would make the kernel answer it with a reset instead.
const (
	lingerBytes = 64 << 20
	lingerTime  = 10 * time.Second
)

func limitBody(n int64, routes *http.ServeMux, tooLarge http.HandlerFunc) Middleware {
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
			body := r.Body
			if r.ContentLength > limit {
				w.Header().Set("Connection", "close")
				tooLarge(w, r)
				// A client that asked "Expect: 100-continue" sends no body
				// after a final answer: there is nothing to wait for.
				if !strings.EqualFold(r.Header.Get("Expect"), "100-continue") {
					linger(w, body)
				}
				return
			}
			lb := &limitedBody{ReadCloser: http.MaxBytesReader(w, body, limit)}
			r.Body = lb
			next.ServeHTTP(w, r)
			if lb.hit {
				linger(w, body)
			}
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

// limitedBody records that the handler read past the limit.
type limitedBody struct {
	io.ReadCloser
	hit bool
}

func (b *limitedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	var mbe *http.MaxBytesError
	if err != nil && errors.As(err, &mbe) {
		b.hit = true
	}
	return n, err
}

// Close is a no-op: the server closes the request body itself, and linger
// still has to read it.
func (b *limitedBody) Close() error { return nil }

// linger sends the answer written so far, then reads and discards the rest of
// the body (see lingerBytes).
func linger(w http.ResponseWriter, body io.Reader) {
	rc := http.NewResponseController(w)
	rc.Flush()
	rc.SetReadDeadline(time.Now().Add(lingerTime))
	io.CopyN(io.Discard, body, lingerBytes)
}

// CrossOrigin refuses cross-origin unsafe requests (CSRF) using the browser's
// Sec-Fetch-Site and Origin headers.
func CrossOrigin(s *Site) Middleware {
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Error(w, r, errCrossOrigin)
	}))
	return cop.Handler
}
