package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Site is what every handler needs to answer: the shared assets, the layout and
// the one error path. Apps get it through their Deps.
type Site struct {
	Assets *Assets
	Log    *slog.Logger
	Apps   []AppLink // the apps in the top navigation, in order

	// HotContext, if set, makes the context of a request the hot lane
	// looks up, which the chain gets too when the lookup misses: for what
	// the lookup read and the page's handler would read again (cluster
	// mode: version.WithMemo).
	HotContext func(context.Context) context.Context

	hotExact map[string]*hotRoute // cached public pages served ahead of the chain (Hot)
	hotWild  []*hotRoute
	early    map[string]http.Handler // served ahead of sessions (Early), by pattern
	visitors map[string]bool         // Early patterns for requests without a cookie only (EarlyVisitors)
}

// AppLink is one app in the navigation and on the landing page.
type AppLink struct {
	Path, Name, Blurb string
	Ready             bool // false: shown as coming soon, never as a broken link
}

var (
	errPanic       = errors.New("panic")
	errCrossOrigin = errs.E(errs.Forbidden, "This request came from another site and was refused.")
)

// Render renders c into a buffer and then writes it with status, so that a
// failing template never leaves half a page.
func (s *Site) Render(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	var buf bytes.Buffer
	if err := c.Render(r.Context(), &buf); err != nil {
		s.Error(w, r, err)
		return
	}
	h := w.Header()
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "text/html; charset=utf-8")
	}
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-cache")
	}
	WriteBody(w, r, status, buf.Bytes())
}

// Status maps an error kind to its HTTP status.
func Status(k errs.Kind) int {
	switch k {
	case errs.Invalid:
		return http.StatusUnprocessableEntity
	case errs.NotFound:
		return http.StatusNotFound
	case errs.Conflict, errs.Repeated:
		return http.StatusConflict
	case errs.Forbidden:
		return http.StatusForbidden
	case errs.Unauthorized:
		return http.StatusUnauthorized
	case errs.TooLarge:
		return http.StatusRequestEntityTooLarge
	case errs.TooMany:
		return http.StatusTooManyRequests
	case errs.BadRequest:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// Problem is an RFC 9457 problem details body.
type Problem struct {
	Type     string            `json:"type"`
	Title    string            `json:"title"`
	Status   int               `json:"status"`
	Detail   string            `json:"detail,omitempty"`
	Instance string            `json:"instance,omitempty"`
	Fields   map[string]string `json:"fields,omitempty"`
}

// Error answers err: JSON problem details for API clients, a status page for
// browsers. Only internal errors are logged, with the request id; users see
// only the safe message.
func (s *Site) Error(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		// The client went away (closed the tab, timed out): nobody reads an
		// answer and it is not a fault of ours.
		s.Log.DebugContext(r.Context(), "client gone", "id", RequestID(r.Context()), "path", r.URL.Path)
		w.WriteHeader(499) // nginx's "client closed request", for the access log and metrics
		return
	}
	if errors.Is(err, errs.ErrRepeated) && !WantsJSON(r) {
		// A form sent again by the proxy after the instance that carried it
		// out died before answering: back to the page it came from, which
		// shows what was done.
		if back := SameSiteReferer(r); back != "" {
			http.Redirect(w, r, back, http.StatusSeeOther)
			return
		}
	}
	e := asError(err)
	status := Status(e.Kind)
	if e.Kind == errs.Internal {
		s.Log.ErrorContext(r.Context(), "internal error", "id", RequestID(r.Context()),
			"method", r.Method, "path", r.URL.Path, "err", err)
	}
	h := w.Header()
	h.Del("Content-Encoding")
	h.Del("ETag")
	h.Set("Cache-Control", "no-store")
	if e.RetryAfter > 0 {
		SetRetryAfter(h, e.RetryAfter)
	}
	if WantsJSON(r) {
		h.Set("Content-Type", "application/problem+json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(Problem{
			Type: "about:blank", Title: http.StatusText(status), Status: status,
			Detail: e.Message, Instance: r.URL.Path, Fields: e.Fields,
		})
		return
	}
	var buf bytes.Buffer
	if rerr := ErrorPage(s, status, e.Message).Render(r.Context(), &buf); rerr != nil {
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		w.Write([]byte(e.Message))
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// asError classifies err, including the standard library's own errors.
func asError(err error) *errs.Error {
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return errs.E(errs.TooLarge, "The request is too large.")
	}
	return errs.As(err)
}

// WantsJSON reports whether the client asked for JSON rather than a page:
// the path is under an app's API (IsAPI: /APP/api/..., matched as a path
// segment, so /roar/u/api/follow is a page), the body is JSON, or Accept
// asks for JSON and not HTML. It is the one test every error and answer
// path uses to choose between JSON and HTML.
func WantsJSON(r *http.Request) bool {
	if IsAPI(r.URL.Path) || strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		return true
	}
	a := r.Header.Get("Accept")
	return strings.Contains(a, "application/json") && !strings.Contains(a, "text/html")
}

// NotFound answers 404 with the status page.
func (s *Site) NotFound(w http.ResponseWriter, r *http.Request) {
	s.Error(w, r, errs.ErrNotFound)
}

// RefusedStatus is the status of a form shown again with e, a refusal it
// tells at its fields (422 for what was typed, 429 past a limit: the
// wait), with Retry-After set when e has one.
func RefusedStatus(h http.Header, e *errs.Error) int {
	if e.RetryAfter > 0 {
		SetRetryAfter(h, e.RetryAfter)
	}
	return Status(e.Kind)
}

// SetRetryAfter sets Retry-After to d in whole seconds, rounded up (a
// client told 0 would retry at once).
func SetRetryAfter(h http.Header, d time.Duration) {
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
}

// SameSiteReferer is the path (and query) of r's Referer if it is on r's
// own host, else "": where a form without JavaScript returns to.
func SameSiteReferer(r *http.Request) string {
	u, err := url.Parse(r.Referer())
	if err != nil || u.Host != r.Host || u.Path == "" {
		return ""
	}
	return LocalPath(u.RequestURI())
}
