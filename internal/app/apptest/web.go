package apptest

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
)

// Web is one person using a running server without JavaScript: a cookie
// jar, requests that do not follow redirects (so tests assert them), and
// bodies read whole. The HTTP tests of every app drive the server with it.
type Web struct {
	T      testing.TB
	Client *http.Client
	Base   string // the server's URL, without a trailing slash
}

// NewWeb is a fresh visitor of m (no cookies).
func NewWeb(t testing.TB, m *app.Main) *Web {
	return &Web{T: t, Client: Client(t), Base: m.URL()}
}

// Do sends a request to Base+path and returns the response with its body
// read and closed; a transport error fails the test.
func (w *Web) Do(method, path string, body io.Reader, header http.Header) (*http.Response, string) {
	w.T.Helper()
	req, err := http.NewRequest(method, w.Base+path, body)
	if err != nil {
		w.T.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := w.Client.Do(req)
	if err != nil {
		w.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		w.T.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return res, string(b)
}

// Get is Do("GET", path, nil, nil).
func (w *Web) Get(path string) (*http.Response, string) {
	w.T.Helper()
	return w.Do(http.MethodGet, path, nil, nil)
}

// Post submits form to path as a browser does (urlencoded).
func (w *Web) Post(path string, form url.Values) (*http.Response, string) {
	w.T.Helper()
	return w.Do(http.MethodPost, path, strings.NewReader(form.Encode()),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
}

// Cookie is the jar's cookie of that name for Base, or nil.
func (w *Web) Cookie(name string) *http.Cookie {
	u, err := url.Parse(w.Base)
	if err != nil {
		w.T.Fatal(err)
	}
	for _, c := range w.Client.Jar.Cookies(u) {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// WantStatus fails the test unless res has status want.
func WantStatus(t testing.TB, res *http.Response, body string, want int) {
	t.Helper()
	if res.StatusCode != want {
		t.Fatalf("%s %s: status %d; want %d. Body:\n%.1500s", res.Request.Method, res.Request.URL, res.StatusCode, want, body)
	}
}

// WantRedirect fails the test unless res is a 303; it returns the target's
// path.
func WantRedirect(t testing.TB, res *http.Response, body string) string {
	t.Helper()
	WantStatus(t, res, body, http.StatusSeeOther)
	u, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatalf("%s %s: bad Location %q: %v", res.Request.Method, res.Request.URL, res.Header.Get("Location"), err)
	}
	return u.Path
}
