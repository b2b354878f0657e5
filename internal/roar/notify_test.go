package roar_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

var badge = regexp.MustCompile(`id="unseen"( hidden)?>(\d+)<`)

// unread is the badge's count on b's public timeline ("0" when hidden).
func (b *browser) unread() string {
	b.t.Helper()
	_, page := b.get("/roar/")
	m := badge.FindStringSubmatch(page)
	if m == nil {
		b.t.Fatalf("no unread badge on the page")
	}
	if (m[1] != "") != (m[2] == "0") {
		b.t.Errorf("badge %q: hidden must go with 0", m[0])
	}
	return m[2]
}

var upTo = regexp.MustCompile(`action="/roar/notifications/seen"[^>]*>\s*<input type="hidden" name="up_to" value="(\d+)"`)

// TestNotificationsGETChangesNothing: reading the notifications, from a link
// on another site or not, leaves them unread; the page's form (which its
// script sends by itself) marks them seen by a same-site POST only.
func TestNotificationsGETChangesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := user(t, m, "ann"), user(t, m, "bob")
		id := ann.roar("hello", "")
		bob.post("/roar/r/"+id+"/like", url.Values{"on": {"true"}})
		bob.roar("@ann hi", id)
		if got := ann.unread(); got != "2" {
			t.Fatalf("unread %s; want 2", got)
		}
		var page string
		for _, site := range []string{"cross-site", "same-origin", ""} {
			h := http.Header{}
			if site != "" {
				h.Set("Sec-Fetch-Site", site)
			}
			var res *http.Response
			res, page = ann.do("GET", "/roar/notifications", nil, h)
			wantStatus(t, res, 200, "notifications")
			if got := ann.unread(); got != "2" {
				t.Fatalf("after a GET (Sec-Fetch-Site %q): unread %s; want 2 (a GET changes nothing)", site, got)
			}
		}
		form := upTo.FindStringSubmatch(page)
		if form == nil {
			t.Fatalf("the notifications page has no mark-seen form:\n%s", page)
		}

		// Another site cannot post the form.
		res, _ := ann.do("POST", "/roar/notifications/seen", strings.NewReader("up_to="+form[1]),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Sec-Fetch-Site": {"cross-site"}})
		wantStatus(t, res, http.StatusForbidden, "cross-site mark seen")
		res, _ = ann.post("/roar/notifications/seen", url.Values{"up_to": {"x"}})
		wantStatus(t, res, http.StatusUnprocessableEntity, "mark seen without an id")
		if got := ann.unread(); got != "2" {
			t.Fatalf("after refused POSTs: unread %s; want 2", got)
		}

		// The form without JavaScript: back to the list, all read.
		res, _ = ann.post("/roar/notifications/seen", url.Values{"up_to": {form[1]}})
		wantStatus(t, res, http.StatusSeeOther, "mark seen")
		if loc := res.Header.Get("Location"); loc != "/roar/notifications" {
			t.Errorf("mark seen goes to %q; want /roar/notifications", loc)
		}
		if got := ann.unread(); got != "0" {
			t.Fatalf("after marking seen: unread %s; want 0", got)
		}
		_, page = ann.get("/roar/notifications")
		if upTo.MatchString(page) {
			t.Error("the mark-seen form is still offered with nothing unread")
		}

		// The page's script: the count comes back as JSON.
		bob.post("/roar/u/ann/follow", url.Values{"on": {"true"}})
		res, body := ann.do("POST", "/roar/notifications/seen", strings.NewReader("up_to=999999"),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Accept": {"application/json"}})
		if res.StatusCode != 200 || strings.TrimSpace(body) != `{"unread":0}` {
			t.Fatalf("script's mark seen: %d %s; want 200 {\"unread\":0}", res.StatusCode, body)
		}
	})
}

// TestUnreadGoesLiveToItsUserOnly: a notification sends its user's streams
// (a timeline's, or a page's feed=none) a "notify" event with the unread
// count; nobody else's stream gets it, and feed=none carries nothing else.
func TestUnreadGoesLiveToItsUserOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := user(t, m, "ann"), user(t, m, "bob")
		annRoar := ann.roar("ann's roar", "")
		bobRoar := bob.roar("bob's roar", "")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		annQuiet := openStreamWith(t, ctx, ann.c, m.URL()+"/roar/stream?feed=none", "")
		bobLive := openStreamWith(t, ctx, bob.c, m.URL()+"/roar/stream?feed=public", "")
		visitor := openStream(t, ctx, m.URL()+"/roar/stream", "")
		waitFor(t, func() bool { return streams(t, m) == 3 })

		bob.post("/roar/r/"+annRoar+"/like", url.Values{"on": {"true"}})
		if e := <-annQuiet; e.event != "notify" || !strings.Contains(e.data, `"unread":1`) {
			t.Fatalf("ann's stream: %+v; want notify with unread 1", e)
		}
		ann.post("/roar/r/"+bobRoar+"/like", url.Values{"on": {"true"}})
		// bob sees both likes and his own notify; never ann's. (The two
		// roars' own events may reach streams opened right after them: an
		// event travels through the bus and may reach the hub after the
		// POST was answered.)
		var got []string
		for len(got) < 3 {
			select {
			case e := <-bobLive:
				if e.event == "roar" {
					continue
				}
				got = append(got, e.event)
				if e.event == "notify" && !strings.Contains(e.data, `"unread":1`) {
					t.Fatalf("bob's notify %s; want unread 1", e.data)
				}
			case <-ctx.Done():
				t.Fatalf("bob's stream: only %v", got)
			}
		}
		if slices.Sort(got); !slices.Equal(got, []string{"like", "like", "notify"}) {
			t.Fatalf("bob's stream: %v; want two likes and one notify", got)
		}
		for _, want := range []string{"like", "like"} {
			e := <-visitor
			for e.event == "roar" {
				e = <-visitor
			}
			if e.event != want {
				t.Fatalf("visitor's stream: %+v; want %s (no notify)", e, want)
			}
		}
		// Marking seen in one tab clears the badge of the others.
		ann.post("/roar/notifications/seen", url.Values{"up_to": {"999999"}})
		if e := <-annQuiet; e.event != "notify" || !strings.Contains(e.data, `"unread":0`) {
			t.Fatalf("ann's stream after marking seen: %+v; want notify with unread 0", e)
		}
		// A roar and a like reach the timelines, not feed=none: the next
		// event there is the notify of bob's follow.
		ann.roar("quiet please", "")
		ann.post("/roar/r/"+bobRoar+"/like", url.Values{"on": {"false"}})
		bob.post("/roar/u/ann/follow", url.Values{"on": {"true"}})
		if e := <-annQuiet; e.event != "notify" || !strings.Contains(e.data, `"unread":1`) {
			t.Fatalf("feed=none got %+v; want only the notify of the follow", e)
		}
	})
}
