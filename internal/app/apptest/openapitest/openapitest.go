// Package openapitest holds an app's JSON API to its OpenAPI document in
// tests: every request a test sends under the API's prefix through a
// Contract's client, and every response, is validated against the
// document with kin-openapi (openapi3filter); a request that breaks the
// contract on purpose (to see the server refuse it) is sent through
// OffContract, and then the document must refuse it too, while its
// response is still validated. The Contract records each operation that
// answered a success, and Main fails the test binary when one of the
// document's operations never did.
package openapitest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// Contract is an OpenAPI document, loaded and validated at first use, that
// the exchanges under Prefix are held to.
type Contract struct {
	Path   string // the document's file (relative to the test's package)
	Prefix string // the API's path prefix, such as "/roar/api/"

	load    func() (*loaded, error)
	covered sync.Map // "METHOD /path/template" of the operations that answered a success
}

// New is the contract of the document at path for the exchanges under
// prefix.
func New(path, prefix string) *Contract {
	c := &Contract{Path: path, Prefix: prefix}
	c.load = sync.OnceValues(func() (*loaded, error) {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromFile(path)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", path, err)
		}
		if err := doc.Validate(loader.Context); err != nil {
			return nil, fmt.Errorf("%s is not a valid OpenAPI document: %w", path, err)
		}
		router, err := gorillamux.NewRouter(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: router: %w", path, err)
		}
		return &loaded{doc, router}, nil
	})
	return c
}

type loaded struct {
	doc    *openapi3.T
	router routers.Router
}

// Doc is the loaded document.
func (c *Contract) Doc() (*openapi3.T, error) {
	l, err := c.load()
	if err != nil {
		return nil, err
	}
	return l.doc, nil
}

// Router finds a request's operation in the document.
func (c *Contract) Router() (routers.Router, error) {
	l, err := c.load()
	if err != nil {
		return nil, err
	}
	return l.router, nil
}

type offContractKey struct{}

// OffContract marks req as one that the document must refuse (a missing
// session, an unknown field, a body too long, an undocumented method).
func OffContract(req *http.Request) *http.Request {
	return req.WithContext(context.WithValue(req.Context(), offContractKey{}, true))
}

// Client returns a client (apptest.Client: its own cookie jar, not
// following redirects) whose every exchange under the prefix is checked
// against the document; a mismatch fails t.
func (c *Contract) Client(t testing.TB) *http.Client {
	t.Helper()
	cl := apptest.Client(t)
	cl.Transport = c.Transport(t, http.DefaultTransport)
	return cl
}

// Transport is the checking round tripper over next, reporting to t.
func (c *Contract) Transport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	t.Helper()
	router, err := c.Router()
	if err != nil {
		t.Fatal(err)
	}
	return &validating{c: c, t: t, router: router, next: next}
}

type validating struct {
	c      *Contract
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
	if !strings.HasPrefix(req.URL.Path, v.c.Prefix) {
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
		t.Errorf("%s: the request does not match %s: %v", what, v.c.Path, reqErr)
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
		t.Errorf("%s: the response (%d %s) does not match %s: %v\nbody: %.800s",
			what, res.StatusCode, res.Header.Get("Content-Type"), v.c.Path, err, rb)
	} else if res.StatusCode < 400 && !off && reqErr == nil {
		v.c.covered.Store(route.Method+" "+route.Path, true)
	}
	return res, nil
}

// HasRoutes fails t for each route ("METHOD /path", with values for the
// path's parameters) that the document does not describe: the routes an
// API mounts, listed by its test.
func (c *Contract) HasRoutes(t testing.TB, routes ...string) {
	t.Helper()
	for _, r := range routes {
		if err := c.find(t, r); err != nil {
			t.Errorf("%s: not in %s: %v", r, c.Path, err)
		}
	}
}

// LacksRoutes fails t for each route the document describes: routes the
// API does not have.
func (c *Contract) LacksRoutes(t testing.TB, routes ...string) {
	t.Helper()
	for _, r := range routes {
		if err := c.find(t, r); !errors.Is(err, routers.ErrMethodNotAllowed) && !errors.Is(err, routers.ErrPathNotFound) {
			t.Errorf("%s: the document has it (%v); the API does not", r, err)
		}
	}
}

func (c *Contract) find(t testing.TB, route string) error {
	t.Helper()
	router, err := c.Router()
	if err != nil {
		t.Fatal(err)
	}
	method, path, _ := strings.Cut(route, " ")
	req, err := http.NewRequest(method, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = router.FindRoute(req)
	return err
}

// Uncovered is the document's operations under the prefix that no
// exchange answered with a success, sorted.
func (c *Contract) Uncovered() []string {
	doc, err := c.Doc()
	if err != nil {
		return []string{err.Error()}
	}
	var missing []string
	for path, item := range doc.Paths.Map() {
		if !strings.HasPrefix(path, c.Prefix) {
			continue
		}
		for method := range item.Operations() {
			if _, ok := c.covered.Load(method + " " + path); !ok {
				missing = append(missing, method+" "+path)
			}
		}
	}
	slices.Sort(missing)
	return missing
}

// Main runs the tests (a package's TestMain calls it) and then, when all
// of them ran (no -run, not -short) and passed, fails the binary if an
// operation of the document under the prefix never answered a success.
func (c *Contract) Main(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && flag.Lookup("test.run").Value.String() == "" && !testing.Short() && apptest.EachRuns() {
		if missing := c.Uncovered(); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: operations of %s no test called successfully:\n\t%s\n",
				c.Path, strings.Join(missing, "\n\t"))
			code = 1
		}
	}
	os.Exit(code)
}

// Recorder is a testing.TB that keeps the errors instead of failing: to
// check that the Transport reports a mismatch.
type Recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

// Errorf keeps the error.
func (r *Recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Errors is what was reported, in order.
func (r *Recorder) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.errs)
}
