package roar_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app/apptest/openapitest"
)

// The contract: every request a test sends to /roar/api/ through a
// caller, and every response, is validated against openapi.json (the
// document the server embeds and serves), by openapitest; so is a request
// that breaks the contract on purpose (the document must refuse it too).
var contract = openapitest.New("openapi.json", "/roar/api/")

// TestMain runs the tests and then, when all of them ran, checks that every
// operation of the document under /roar/api/ answered a success in one.
func TestMain(m *testing.M) { contract.Main(m) }

// TestOpenAPIDocument checks the document itself: valid OpenAPI 3.1, served
// byte for byte at /roar/api/openapi.json with an ETag, and every route the
// API mounts is in it (an undocumented route answers 404/405 from the
// document's router).
func TestOpenAPIDocument(t *testing.T) {
	doc, err := contract.Doc()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi %q; want 3.1.x", doc.OpenAPI)
	}
	if doc.Components.SecuritySchemes["session"] == nil {
		t.Error("no session security scheme")
	}
	// The routes apiRoutes mounts (kept in step with api.go by hand), and
	// some it does not.
	contract.HasRoutes(t,
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
	)
	contract.LacksRoutes(t, "PATCH /roar/api/roars/1", "GET /roar/api/roars/1/likes", "POST /roar/api/me")
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
		rec := &openapitest.Recorder{TB: t}
		client := &http.Client{Transport: contract.Transport(rec, http.DefaultTransport)}
		req, _ := http.NewRequest("GET", srv.URL+c.path, nil)
		req.AddCookie(&http.Cookie{Name: "tutti_session", Value: "x"})
		if c.off {
			req = openapitest.OffContract(req)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if errs := rec.Errors(); len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), c.want) {
			t.Errorf("GET %s: reported %q; want an error with %q", c.path, errs, c.want)
		}
	}
}
