package roar_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/roar"
)

// A roar's reply count is what its thread shows the viewer: the replies
// of someone they muted, and of someone who blocked them, are neither
// listed nor counted, on the thread, the timelines and in the API; others
// see every reply. The count costs one query per page, however many roars
// it shows.
func TestReplyCountsMatchWhatTheViewerSees(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, dan, eve, cal := user(t, m, "ann"), user(t, m, "bob"), user(t, m, "dan"), user(t, m, "eve"), user(t, m, "cal")
		root := ann.roar("Best pasta in town?", "")
		bob.roar("@ann mine, obviously", root)
		dan.roar("@ann the one by the station", root)
		eve.roar("@ann none of them", root)
		wantStatus(t, first(cal.post("/roar/u/bob/mute", url.Values{"on": {"true"}})), http.StatusSeeOther, "mute")
		wantStatus(t, first(eve.post("/roar/u/cal/block", url.Values{"on": {"true"}})), http.StatusSeeOther, "block")

		_, thread := cal.get("/roar/r/" + root)
		if n := strings.Count(thread, `class="roar" id="r-`); n != 1 || !strings.Contains(thread, ">1 reply</h2>") || replyCount(thread, root) != "1" {
			t.Errorf("cal's thread: %d replies listed; want 1, and \"1 reply\" twice: %.3000s", n, thread)
		}
		if !strings.Contains(thread, `data-hidden="2"`) {
			t.Error("cal's thread does not tell its script the 2 replies it leaves out (live counts)")
		}
		for _, path := range []string{"/roar/", "/roar/u/ann"} {
			if _, page := cal.get(path); replyCount(page, root) != "1" {
				t.Errorf("cal on %s: the roar shows %s replies; want 1", path, replyCount(page, root))
			}
			if _, page := dan.get(path); replyCount(page, root) != "3" {
				t.Errorf("dan on %s: the roar shows %s replies; want 3", path, replyCount(page, root))
			}
		}
		if _, page := dan.get("/roar/r/" + root); !strings.Contains(page, ">3 replies</h2>") || strings.Contains(page, "data-hidden") {
			t.Errorf("dan's thread: %.2000s", page)
		}
		var api struct{ Replies int64 }
		res, body := cal.do("GET", "/roar/api/roars/"+root, nil, http.Header{"Accept": {"application/json"}})
		if err := json.Unmarshal([]byte(body), &api); err != nil || res.StatusCode != http.StatusOK || api.Replies != 1 {
			t.Errorf("the API to cal: %d %s (%v); want replies 1", res.StatusCode, body, err)
		}

		// One query for the counts, whatever the page's length.
		count := func() int64 { return statements(t, m, cal, "/roar/?before=1000000") }
		small := count()
		for i := range 8 {
			id := dan.roar(fmt.Sprint("question ", i), "")
			bob.roar(fmt.Sprint("@dan answer ", i), id)
		}
		if big := count(); big != small {
			t.Errorf("statements: %d with a few roars, %d with 16 more; want the same", small, big)
		}
	})
}

func first(res *http.Response, _ string) *http.Response { return res }

// TestBrowserReplyCountLessHidden: on the thread page of someone who muted
// one replier, a new reply raises the counts live from what the page shows
// (the muted one's replies left out), not to the count everyone sees.
func TestBrowserReplyCountLessHidden(t *testing.T) {
	cal := apptest.Browser(t, 390, 844)
	m := apptest.One(t)
	ctx := context.Background()
	signupIn(t, cal, m.URL(), "cal")
	post := func(name, body string, replyTo int64) int64 {
		t.Helper()
		u, err := m.Auth.ByUsername(ctx, name)
		if err != nil {
			u, err = m.Auth.Create(ctx, auth.Signup{Username: name, Email: name + "@example.com", Password: "password-" + name})
		}
		if err != nil {
			t.Fatal(err)
		}
		r, err := apptest.AppOf[*roar.App](t, m).Service().Post(ctx, u, body, replyTo)
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	root := post("ann", "Best pasta in town?", 0)
	post("bob", "@ann mine, obviously", root)
	post("dan", "@ann the one by the station", root)
	u, err := m.Auth.ByUsername(ctx, "cal")
	if err != nil {
		t.Fatal(err)
	}
	if err := apptest.AppOf[*roar.App](t, m).Service().Relate(ctx, u, "bob", "mute", true); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(cal, chromedp.Navigate(m.URL()+"/roar/r/"+itoa(root)), chromedp.WaitVisible(`#replies-h`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return streams(t, m) == 1 })
	post("eve", "@ann the green door", root)
	_, err = chromedp.Run(cal, chromedp.Poll[bool](`document.getElementById("replies-h").textContent.trim() === "2 replies"
		&& document.querySelector(".roar.focus .reply-count").textContent.trim() === "2"
		&& document.querySelectorAll("#timeline > article.roar").length === 2`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil {
		state, _ := chromedp.Run(cal, chromedp.Evaluate[string](`document.getElementById("replies-h").textContent + " / " + document.querySelector(".roar.focus .reply-count").textContent`))
		t.Fatalf("cal's thread after a third reply: %v (heading / count: %s); want 2 replies (bob's left out)", err, state)
	}
	apptest.Screenshot(t, cal, "roar-thread-muted-replier-390")
}
