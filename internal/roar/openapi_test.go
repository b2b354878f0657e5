package roar_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// The contract: every request a test sends to /roar/api/ through apiClient,
// and every response, is validated against openapi.json (the document the
// server embeds and serves). A request that breaks the contract on purpose
// (to see the server refuse it) is sent through offContract, and then the
// document must refuse it too; its response is still validated.

// spec is the loaded and validated document with its router, loaded once.
var spec = sync.OnceValues(func() (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromFile("openapi.json")
	if err != nil {
		return nil, fmt.Errorf("load openapi.json: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi.json is not a valid OpenAPI document: %w", err)
	}
	return doc, nil
})

var specRouter = sync.OnceValues(func() (routers.Router, error) {
	doc, err := spec()
	if err != nil {
		return nil, err
	}
	return gorillamux.NewRouter(doc)
})

type offContractKey struct{}

// offContract marks req as one that the document must refuse (a missing
// session, an unknown field, a body too long, an undocumented method).
func offContract(req *http.Request) *http.Request {
	return req.WithContext(context.WithValue(req.Context(), offContractKey{}, true))
}

// covered records the operations that answered a success, by "METHOD
// /path/template"; TestMain checks that every one of the document's was.
var covered sync.Map

// apiClient returns a client (with its own cookie jar, not following
// redirects) whose every exchange with /roar/api/ is checked against the
// document; a mismatch fails t.
func apiClient(t testing.TB, m *app.Main) *http.Client {
	t.Helper()
	router, err := specRouter()
	if err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Jar:     jar,
		Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
		Transport: &validating{t: t, router: router, next: http.DefaultTransport},
	}
}

type validating struct {
	t      testing.TB
	router routers.Router
	next   http.RoundTripper
}

var filterOptions = &openapi3filter.Options{
	IncludeResponseStatus: true, // a status the document does not list is a mismatch
	MultiError:            true,
	AuthenticationFunc: func(_ context.Context, in *openapi3filter.AuthenticationInput) error {
		s := in.SecurityScheme
		if s.Type != "apiKey" || s.In != "cookie" {
			return fmt.Errorf("unexpected security scheme %s", in.SecuritySchemeName)
		}
		if _, err := in.RequestValidationInput.Request.Cookie(s.Name); err != nil {
			return fmt.Errorf("no %s cookie", s.Name)
		}
		return nil
	},
}

func (v *validating) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasPrefix(req.URL.Path, "/roar/api/") {
		return v.next.RoundTrip(req)
	}
	t := v.t
	off := req.Context().Value(offContractKey{}) != nil
	what := req.Method + " " + req.URL.RequestURI()

	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	// The validator reads (and may rewrite) its own copy of the request.
	vreq := req.Clone(req.Context())
	vreq.Body = io.NopCloser(bytes.NewReader(body))
	route, params, reqErr := v.router.FindRoute(vreq)
	var in *openapi3filter.RequestValidationInput
	if reqErr == nil {
		in = &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route, Options: filterOptions}
		reqErr = openapi3filter.ValidateRequest(req.Context(), in)
	}
	switch {
	case off && reqErr == nil:
		t.Errorf("%s: the document accepts this request, which the test sends as one it must refuse", what)
	case !off && reqErr != nil:
		t.Errorf("%s: the request does not match openapi.json: %v", what, reqErr)
	}

	res, err := v.next.RoundTrip(req)
	if err != nil || in == nil {
		return res, err // no operation to hold the response against (404 or 405 from the router)
	}
	rb, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(rb))
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode,
		Header: res.Header, Options: filterOptions}
	out.SetBodyBytes(rb)
	if err := openapi3filter.ValidateResponse(req.Context(), out); err != nil {
		t.Errorf("%s: the response (%d %s) does not match openapi.json: %v\nbody: %.800s",
			what, res.StatusCode, res.Header.Get("Content-Type"), err, rb)
	} else if res.StatusCode < 400 && !off {
		covered.Store(route.Method+" "+route.Path, true)
	}
	return res, nil
}

// TestMain runs the tests and then, when all of them ran (and the HTTP
// tests ran in this run: CI's PostgreSQL step leaves them to its cluster
// step), checks that every operation of the document under /roar/api/
// answered a success in one.
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() && apptest.EachRuns() {
		if missing := uncovered(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: operations of openapi.json no test called successfully:\n\t%s\n",
				strings.Join(missing, "\n\t"))
			code = 1
		}
	}
	os.Exit(code)
}

func uncovered() []string {
	doc, err := spec()
	if err != nil {
		return []string{err.Error()}
	}
	var missing []string
	for path, item := range doc.Paths.Map() {
		if !strings.HasPrefix(path, "/roar/api/") {
			continue
		}
		for method := range item.Operations() {
			if _, ok := covered.Load(method + " " + path); !ok {
				missing = append(missing, method+" "+path)
			}
		}
	}
	slices.Sort(missing)
	return missing
}

// TestOpenAPIDocument checks the document itself: valid OpenAPI 3.1, served
// byte for byte at /roar/api/openapi.json with an ETag, and every route the
// API mounts is in it (an undocumented route answers 404/405 from the
// document's router).
func TestOpenAPIDocument(t *testing.T) {
	doc, err := spec()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi %q; want 3.1.x", doc.OpenAPI)
	}
	if doc.Components.SecuritySchemes["session"] == nil {
		t.Error("no session security scheme")
	}
	router, err := specRouter()
	if err != nil {
		t.Fatal(err)
	}
	// The routes apiRoutes mounts (kept in step with api.go by hand).
	for _, r := range []string{
		"GET /roar/api/openapi.json", "POST /roar/api/session", "DELETE /roar/api/session", "GET /roar/api/me",
		"GET /roar/api/roars", "POST /roar/api/roars", "GET /roar/api/roars/1", "DELETE /roar/api/roars/1",
		"GET /roar/api/roars/1/replies", "GET /roar/api/roars/1/thread", "PUT /roar/api/roars/1/like",
		"DELETE /roar/api/roars/1/like", "PUT /roar/api/roars/1/repost", "DELETE /roar/api/roars/1/repost",
		"POST /roar/api/roars/1/reports", "GET /roar/api/timelines/home", "GET /roar/api/tags/go/roars",
		"GET /roar/api/users/ann", "GET /roar/api/users/ann/roars", "PUT /roar/api/users/ann/follow",
		"DELETE /roar/api/users/ann/follow", "PUT /roar/api/users/ann/mute", "DELETE /roar/api/users/ann/mute",
		"PUT /roar/api/users/ann/block", "DELETE /roar/api/users/ann/block", "GET /roar/api/notifications",
		"POST /roar/api/notifications/seen", "GET /roar/api/reports", "DELETE /roar/api/reports/1",
		"GET /roar/stream",
	} {
		method, path, _ := strings.Cut(r, " ")
		req, _ := http.NewRequest(method, path, nil)
		if _, _, err := router.FindRoute(req); err != nil {
			t.Errorf("%s: not in openapi.json: %v", r, err)
		}
	}
	for _, r := range []string{"PATCH /roar/api/roars/1", "GET /roar/api/roars/1/likes", "POST /roar/api/me"} {
		method, path, _ := strings.Cut(r, " ")
		req, _ := http.NewRequest(method, path, nil)
		if _, _, err := router.FindRoute(req); !errors.Is(err, routers.ErrMethodNotAllowed) && !errors.Is(err, routers.ErrPathNotFound) {
			t.Errorf("%s: the document has it (%v); the API does not", r, err)
		}
	}
}

// recorder is a testing.TB that keeps the errors instead of failing.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestContractCatchesMismatches checks the checker: a response off the
// document, an undocumented status, and a request the test says is bad but
// the document accepts are all reported.
func TestContractCatchesMismatches(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/roar/api/me": // username must be a string, and unread_notifications is missing
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id": 1, "username": 7, "display_name": "x", "email": "a@b.c", "bio": "", "moderator": false}`))
		case "/roar/api/roars/1":
			w.WriteHeader(http.StatusTeapot)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"roars": []}`))
		}
	}))
	defer srv.Close()
	router, err := specRouter()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		off  bool
		want string
	}{
		{"/roar/api/me", false, "does not match"},
		{"/roar/api/roars/1", false, "does not match"},
		{"/roar/api/roars", true, "must refuse"},
		{"/roar/api/roars?limit=0", false, "request does not match"},
	} {
		rec := &recorder{TB: t}
		client := &http.Client{Transport: &validating{t: rec, router: router, next: http.DefaultTransport}}
		req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
		req.AddCookie(&http.Cookie{Name: "tutti_session", Value: "x"})
		if c.off {
			req = offContract(req)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if len(rec.errs) == 0 || !strings.Contains(strings.Join(rec.errs, "\n"), c.want) {
			t.Errorf("GET %s: reported %q; want an error with %q", c.path, rec.errs, c.want)
		}
	}
}
