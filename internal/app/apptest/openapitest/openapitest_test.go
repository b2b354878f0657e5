package openapitest_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app/apptest/openapitest"
)

// TestContract checks the checker on a document of one operation: a
// response off the document, an undocumented status and a request that
// the test says is bad but the document accepts are reported; a good
// exchange is not, and counts as covering its operation.
func TestContract(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/t/api/things/0", "/t/api/things/1":
			w.Write([]byte(`{"id": 1}`))
		case "/t/api/things/2":
			w.Write([]byte(`{"id": "two"}`))
		case "/t/api/things/3":
			w.WriteHeader(http.StatusTeapot)
			w.Write([]byte(`{}`))
		}
	}))
	defer srv.Close()
	c := openapitest.New("testdata/things.json", "/t/api/")
	if got := c.Uncovered(); !slices.Equal(got, []string{"GET /t/api/things/{id}"}) {
		t.Errorf("uncovered before any call: %v", got)
	}
	cases := []struct {
		path   string
		cookie bool
		off    bool
		want   string // "" for no report
	}{
		{"/t/api/things/2", true, false, "response (200 application/json) does not match"},
		{"/t/api/things/3", true, false, "does not match"},
		{"/t/api/things/1", false, false, "request does not match"},
		{"/t/api/things/1", true, true, "must refuse"},
		{"/t/api/things/0", true, true, ""},
		{"/t/api/things/1", true, false, ""},
	}
	for i, tc := range cases {
		rec := &openapitest.Recorder{TB: t}
		client := &http.Client{Transport: c.Transport(rec, http.DefaultTransport)}
		req, _ := http.NewRequest("GET", srv.URL+tc.path, nil)
		if tc.cookie {
			req.AddCookie(&http.Cookie{Name: "sid", Value: "x"})
		}
		if tc.off {
			req = openapitest.OffContract(req)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		errs := strings.Join(rec.Errors(), "\n")
		if tc.want == "" && errs != "" || tc.want != "" && !strings.Contains(errs, tc.want) {
			t.Errorf("GET %s (cookie %v, off %v): reported %q; want %q", tc.path, tc.cookie, tc.off, errs, tc.want)
		}
		// Only the last, good exchange covers the operation.
		if covered, last := len(c.Uncovered()) == 0, i == len(cases)-1; covered != last {
			t.Errorf("after GET %s (cookie %v, off %v): covered %v; want %v", tc.path, tc.cookie, tc.off, covered, last)
		}
	}

	rec := &openapitest.Recorder{TB: t}
	c.HasRoutes(rec, "GET /t/api/things/7", "PUT /t/api/things/7", "GET /t/api/nothing")
	c.LacksRoutes(rec, "DELETE /t/api/things/7", "GET /t/api/things/7")
	if got := rec.Errors(); len(got) != 3 || !strings.Contains(got[0], "PUT /t/api/things/7: not in") ||
		!strings.Contains(got[1], "GET /t/api/nothing: not in") || !strings.Contains(got[2], "GET /t/api/things/7: the document has it") {
		t.Errorf("route checks reported %q; want PUT and /nothing missing, GET present", got)
	}
}
