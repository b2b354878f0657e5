package app_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// The cached public pages a visitor hits are served by the site's hot lane
// (web.Site.Hot), ahead of the middleware chain: a second look gets the
// first look's answer header for header, and a change made meanwhile shows
// on the next look.
func TestHotPagesAnswerAsTheChain(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		if err := m.LoadDemo(context.Background()); err != nil {
			t.Fatal(err)
		}
		visitor := apptest.NewWeb(t, m)
		gzip := http.Header{"Accept-Encoding": {"gzip"}}
		const poll = "/meet/polls/demo-team-offsite-2026"
		for _, path := range []string{"/roar/", "/roar/api/roars", poll} {
			first, firstBody := visitor.Do("GET", path, nil, gzip) // a miss: rendered by the app
			second, secondBody := visitor.Do("GET", path, nil, gzip)
			apptest.WantStatus(t, second, secondBody, 200)
			if firstBody != secondBody || second.Header.Get("Content-Encoding") != "gzip" {
				t.Errorf("%s: the second look differs from the first (%d and %d bytes, %q)", path,
					len(firstBody), len(secondBody), second.Header.Get("Content-Encoding"))
			}
			for _, h := range []http.Header{first.Header, second.Header} {
				delete(h, "Date")
				if len(h["X-Request-Id"]) == 1 { // behind nginx: its id of each request, echoed
					h["X-Request-Id"] = []string{"(echoed)"}
				}
			}
			if len(first.Header) != len(second.Header) {
				t.Errorf("%s: headers\n first  %v\n second %v", path, first.Header, second.Header)
			}
			for k := range first.Header {
				if first.Header.Get(k) != second.Header.Get(k) {
					t.Errorf("%s: header %s: first %q, second %q", path, k, first.Header.Get(k), second.Header.Get(k))
				}
			}
			res, body := visitor.Do("GET", path, nil, http.Header{"If-None-Match": {second.Header.Get("Etag")}})
			apptest.WantStatus(t, res, body, http.StatusNotModified)
		}
		// Someone answers the poll: the next visitor's look shows it (with
		// PostgreSQL, versions are trusted for up to a second).
		_, body := visitor.Get(poll)
		if strings.Contains(body, "Hot Lane Tester") {
			t.Fatal("the name is there before it was added")
		}
		res, body := apptest.NewWeb(t, m).Post(poll+"/participants", url.Values{"name": {"Hot Lane Tester"}})
		apptest.WantRedirect(t, res, body)
		for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if _, body := visitor.Get(poll); strings.Contains(body, "Hot Lane Tester") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the new participant never showed on the cached poll page")
			}
		}
	})
}
