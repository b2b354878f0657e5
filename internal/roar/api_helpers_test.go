package roar_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/auth"
)

const testPassword = "correct horse battery staple"

// passwordHash is testPassword hashed once, so that making users is cheap.
var passwordHash = sync.OnceValues(func() (string, error) { return auth.HashPassword(testPassword) })

// newUser makes an account named name.
func newUser(t *testing.T, m *app.Main, name string) *auth.User {
	t.Helper()
	h, err := passwordHash()
	if err != nil {
		t.Fatal(err)
	}
	u, err := m.Auth.CreateWithHash(context.Background(),
		auth.Signup{Username: name, Email: strings.ToLower(name) + "@example.com"}, h)
	if err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	return u
}

// caller talks to the API as one client (one cookie jar), through the
// validating transport.
type caller struct {
	t    *testing.T
	m    *app.Main
	c    *http.Client
	name string // the username once logged in
}

func visitor(t *testing.T, m *app.Main) *caller {
	return &caller{t: t, m: m, c: apiClient(t, m)}
}

// signedIn makes the user name and logs in as them through the API.
func signedIn(t *testing.T, m *app.Main, name string) *caller {
	t.Helper()
	newUser(t, m, name)
	c := visitor(t, m)
	var me struct {
		Username string `json:"username"`
	}
	c.call("POST", "/roar/api/session", map[string]string{"login": name, "password": testPassword}, 200, &me)
	if me.Username != name {
		t.Fatalf("logged in as %q; want %q", me.Username, name)
	}
	c.name = name
	return c
}

// send sends a request; body is JSON-encoded unless it is a string (sent
// as is) or nil. off marks a request the document must refuse.
func (c *caller) send(method, path string, body any, header http.Header, off bool) (*http.Response, []byte) {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(method, c.m.URL()+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if off {
		req = offContract(req)
	}
	res, err := c.c.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading the body: %v", method, path, err)
	}
	return res, out
}

// call sends a request the document allows, checks the status, and decodes
// the answer into out (if not nil).
func (c *caller) call(method, path string, body any, want int, out any) *http.Response {
	c.t.Helper()
	res, b := c.send(method, path, body, nil, false)
	return c.check(res, b, want, out)
}

// refused sends a request that breaks the contract on purpose and checks the
// status; it returns the problem's fields.
func (c *caller) refused(method, path string, body any, want int) problem {
	c.t.Helper()
	res, b := c.send(method, path, body, nil, true)
	var p problem
	c.check(res, b, want, nil)
	if want != http.StatusMethodNotAllowed {
		c.problem(res, b, &p)
	}
	return p
}

// fails sends an allowed request that the server must answer with the
// problem status want.
func (c *caller) fails(method, path string, body any, want int) problem {
	c.t.Helper()
	res, b := c.send(method, path, body, nil, false)
	var p problem
	c.check(res, b, want, nil)
	c.problem(res, b, &p)
	return p
}

func (c *caller) check(res *http.Response, b []byte, want int, out any) *http.Response {
	c.t.Helper()
	if res.StatusCode != want {
		c.t.Fatalf("%s %s (as %q): status %d; want %d\n%.1000s", res.Request.Method, res.Request.URL.RequestURI(),
			c.name, res.StatusCode, want, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			c.t.Fatalf("%s %s: decoding %T: %v\n%.500s", res.Request.Method, res.Request.URL.Path, out, err, b)
		}
	}
	return res
}

func (c *caller) problem(res *http.Response, b []byte, p *problem) {
	c.t.Helper()
	if ct := res.Header.Get("Content-Type"); ct != "application/problem+json" {
		c.t.Errorf("%s %s: Content-Type %q; want application/problem+json", res.Request.Method, res.Request.URL.Path, ct)
	}
	if err := json.Unmarshal(b, p); err != nil {
		c.t.Errorf("problem body: %v", err)
	}
	if p.Status != res.StatusCode {
		c.t.Errorf("problem status %d; want %d", p.Status, res.StatusCode)
	}
}

// hasSession reports whether the client holds a session cookie.
func (c *caller) hasSession() bool {
	u, _ := url.Parse(c.m.URL())
	for _, k := range c.c.Jar.Cookies(u) {
		if k.Name == auth.CookieName {
			return true
		}
	}
	return false
}

type problem struct {
	Status int               `json:"status"`
	Detail string            `json:"detail"`
	Fields map[string]string `json:"fields"`
}

// The API's shapes, as a client decodes them.
type (
	roarJSON struct {
		ID       int64     `json:"id"`
		URL      string    `json:"url"`
		Author   userJSON  `json:"author"`
		Body     string    `json:"body"`
		ReplyTo  int64     `json:"reply_to"`
		RepostOf *roarJSON `json:"repost_of"`
		Likes    int64     `json:"likes"`
		Replies  int64     `json:"replies"`
		Reposts  int64     `json:"reposts"`
		Liked    *bool     `json:"liked"`
		Reposted *bool     `json:"reposted"`
	}
	userJSON struct {
		ID       int64  `json:"id"`
		Username string `json:"username"`
	}
	listJSON struct {
		Roars []roarJSON `json:"roars"`
		Next  string     `json:"next"`
	}
	profileJSON struct {
		Username  string `json:"username"`
		Roars     int64  `json:"roars"`
		Followers int64  `json:"followers"`
		Following int64  `json:"following"`
		Relation  *struct {
			Me, Following, Muted, Blocked bool
			FollowsMe                     bool `json:"follows_me"`
			BlocksMe                      bool `json:"blocks_me"`
		} `json:"relation"`
	}
)

func (l listJSON) ids() []int64 {
	out := make([]int64, len(l.Roars))
	for i, r := range l.Roars {
		out[i] = r.ID
	}
	return out
}

// post posts body as c and returns the roar.
func (c *caller) post(body string) roarJSON {
	c.t.Helper()
	var r roarJSON
	c.call("POST", "/roar/api/roars", map[string]any{"body": body}, http.StatusCreated, &r)
	return r
}
