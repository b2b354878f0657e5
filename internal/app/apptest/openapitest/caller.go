package openapitest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// Caller talks to a server's API as one client (one cookie jar), through
// the contract's checking transport.
type Caller struct {
	T    testing.TB
	Base string       // the server's URL, such as http://127.0.0.1:1234
	HTTP *http.Client // Contract.Client
	Name string       // who calls, for failure messages ("" for a visitor)
}

// Caller is a new client of the server at base, reporting to t.
func (c *Contract) Caller(t testing.TB, base string) *Caller {
	t.Helper()
	return &Caller{T: t, Base: base, HTTP: c.Client(t)}
}

// Problem is an RFC 9457 problem's fields as the API writes them.
type Problem struct {
	Status int               `json:"status"`
	Detail string            `json:"detail"`
	Fields map[string]string `json:"fields"`
}

// Send sends a request; body is JSON-encoded unless it is a string (sent
// as is) or nil. off marks a request the document must refuse.
func (c *Caller) Send(method, path string, body any, header http.Header, off bool) (*http.Response, []byte) {
	c.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			c.T.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		c.T.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if off {
		req = OffContract(req)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		c.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		c.T.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return res, out
}

// Call sends a request the document allows, checks the status, and decodes
// the answer into out (if not nil).
func (c *Caller) Call(method, path string, body any, want int, out any) *http.Response {
	c.T.Helper()
	res, b := c.Send(method, path, body, nil, false)
	return c.Check(res, b, want, out)
}

// Refused sends a request that breaks the contract on purpose and checks
// the status; it returns the problem's fields (none for a 405).
func (c *Caller) Refused(method, path string, body any, want int) Problem {
	c.T.Helper()
	res, b := c.Send(method, path, body, nil, true)
	var p Problem
	c.Check(res, b, want, nil)
	if want != http.StatusMethodNotAllowed {
		c.Problem(res, b, &p)
	}
	return p
}

// Fails sends an allowed request that the server must answer with the
// problem status want.
func (c *Caller) Fails(method, path string, body any, want int) Problem {
	c.T.Helper()
	res, b := c.Send(method, path, body, nil, false)
	var p Problem
	c.Check(res, b, want, nil)
	c.Problem(res, b, &p)
	return p
}

// Check fails the test unless res has the status want; it decodes b into
// out (if not nil).
func (c *Caller) Check(res *http.Response, b []byte, want int, out any) *http.Response {
	c.T.Helper()
	if res.StatusCode != want {
		c.T.Fatalf("%s %s (as %q): status %d; want %d\n%.1000s", res.Request.Method, res.Request.URL.RequestURI(),
			c.Name, res.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.T.Fatalf("%s %s: decoding %T: %v\n%.500s", res.Request.Method, res.Request.URL.Path, out, err, b)
		}
	}
	return res
}

// Problem decodes b, res's body, as problem details into p, checking the
// content type and that the problem's status is the response's.
func (c *Caller) Problem(res *http.Response, b []byte, p *Problem) {
	c.T.Helper()
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		c.T.Errorf("%s %s: Content-Type %q; want application/problem+json", res.Request.Method, res.Request.URL.Path, ct)
	}
	if err := json.Unmarshal(b, p); err != nil {
		c.T.Errorf("problem body: %v", err)
	}
	if p.Status != res.StatusCode {
		c.T.Errorf("problem status %d; want %d", p.Status, res.StatusCode)
	}
}

// Served checks that the server serves the document at path byte for
// byte, with an ETag that answers 304 to If-None-Match.
func (c *Caller) Served(doc *Contract, path string) {
	c.T.Helper()
	want, err := os.ReadFile(doc.Path)
	if err != nil {
		c.T.Fatal(err)
	}
	res, body := c.Send("GET", path, nil, nil, false)
	if res.StatusCode != 200 || string(body) != string(want) || res.Header.Get("ETag") == "" {
		c.T.Fatalf("GET %s: %d, %d bytes, ETag %q; want %s", path, res.StatusCode, len(body), res.Header.Get("ETag"), doc.Path)
	}
	res, _ = c.Send("GET", path, nil, http.Header{"If-None-Match": {res.Header.Get("ETag")}}, false)
	if res.StatusCode != http.StatusNotModified {
		c.T.Errorf("%s with If-None-Match: %d; want 304", path, res.StatusCode)
	}
}

// HasCookie reports whether the client holds the cookie name for the
// server.
func (c *Caller) HasCookie(name string) bool {
	u, _ := url.Parse(c.Base)
	for _, k := range c.HTTP.Jar.Cookies(u) {
		if k.Name == name {
			return true
		}
	}
	return false
}
