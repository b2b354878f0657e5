package roar_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest/openapitest"
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
// validating transport (openapitest.Caller, with the names roar's tests use).
type caller struct {
	*openapitest.Caller
	t *testing.T
	m *app.Main
}

func visitor(t *testing.T, m *app.Main) *caller {
	return &caller{Caller: contract.Caller(t, m.URL()), t: t, m: m}
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
	c.Name = name
	return c
}

// send sends a request; body is JSON-encoded unless it is a string (sent
// as is) or nil. off marks a request the document must refuse.
func (c *caller) send(method, path string, body any, header http.Header, off bool) (*http.Response, []byte) {
	c.t.Helper()
	return c.Send(method, path, body, header, off)
}

// call sends a request the document allows, checks the status, and decodes
// the answer into out (if not nil).
func (c *caller) call(method, path string, body any, want int, out any) *http.Response {
	c.t.Helper()
	return c.Call(method, path, body, want, out)
}

// refused sends a request that breaks the contract on purpose and checks the
// status; it returns the problem's fields.
func (c *caller) refused(method, path string, body any, want int) problem {
	c.t.Helper()
	return c.Refused(method, path, body, want)
}

// fails sends an allowed request that the server must answer with the
// problem status want.
func (c *caller) fails(method, path string, body any, want int) problem {
	c.t.Helper()
	return c.Fails(method, path, body, want)
}

func (c *caller) check(res *http.Response, b []byte, want int, out any) *http.Response {
	c.t.Helper()
	return c.Check(res, b, want, out)
}

// hasSession reports whether the client holds a session cookie.
func (c *caller) hasSession() bool { return c.HasCookie(auth.CookieName) }

type problem = openapitest.Problem

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
