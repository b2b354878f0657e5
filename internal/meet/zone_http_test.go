package meet_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestZoneCookie: the page script's cookie names the viewer's zone, as is or
// percent-encoded (as earlier scripts wrote it); the poll page, the
// participant page and the new-poll form all follow it, and every time on
// the page, the comments' too, is in that zone.
func TestZoneCookie(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Zones") // a Berlin poll
		ada := s.join(pub, "Ada")
		s.mustRedirect(s.post(ada+"/comments", url.Values{"body": {"Any evening works"}}))

		for _, c := range []struct{ cookie, zone string }{
			{"America%2FNew_York", "America/New_York"},
			{"America/New_York", "America/New_York"},
			{"Asia%2FKolkata", "Asia/Kolkata"},
			{"Nowhere%2FAtAll", "Europe/Berlin"}, // unknown: the poll's zone
		} {
			loc, _ := time.LoadLocation(c.zone)
			hdr := http.Header{"Cookie": {"meet_tz=" + c.cookie}}
			for _, path := range []string{pub, ada} {
				_, body := s.do("GET", path, nil, hdr)
				if !strings.Contains(body, `data-zone="`+c.zone+`"`) {
					t.Errorf("cookie %s, %s: page not in %s (data-zone %q)", c.cookie, path, c.zone, grab(body, `data-zone="`))
				}
				// The comment's time is in the page's zone.
				m := regexp.MustCompile(`<time datetime="([^"]+)"[^>]*>([^<]*)</time>`).FindStringSubmatch(body)
				if m == nil {
					t.Fatalf("cookie %s, %s: no comment time on the page", c.cookie, path)
				}
				at, err := time.Parse(time.RFC3339, m[1])
				if err != nil {
					t.Fatalf("comment datetime %q: %v", m[1], err)
				}
				if want := at.In(loc).Format("2 Jan 15:04"); m[2] != want {
					t.Errorf("cookie %s, %s: comment time %q; want %q (%s)", c.cookie, path, m[2], want, c.zone)
				}
			}
		}

		// A new poll defaults to the cookie's zone.
		_, body := s.do("GET", "/meet/polls/new", nil, http.Header{"Cookie": {"meet_tz=America%2FNew_York"}})
		if !strings.Contains(body, `<option value="America/New_York" selected>`) {
			t.Errorf("new poll form does not default to America/New_York:\n%s", grab(body, `<select id="tz-field"`))
		}
	})
}

// TestDeadlineInViewerZone: the deadline in the poll's header is one time in
// the page's zone, not a range from it to itself.
func TestDeadlineInViewerZone(t *testing.T) {
	s := newSite(t, apptest.Start(t, ""))
	day := time.Now().AddDate(0, 0, 10)
	f := pollForm("Deadline", day)
	f.Set("deadline", day.AddDate(0, 0, -1).Format(time.DateOnly)+"T18:30")
	admin := s.mustRedirect(s.post("/meet/polls", f))
	pub := admin[:strings.Index(admin, "/admin/")]
	berlin, _ := time.LoadLocation("Europe/Berlin")
	ny, _ := time.LoadLocation("America/New_York")
	d := day.AddDate(0, 0, -1)
	deadline := time.Date(d.Year(), d.Month(), d.Day(), 18, 30, 0, 0, berlin)
	_, body := s.do("GET", pub, nil, http.Header{"Cookie": {"meet_tz=America/New_York"}})
	if want := "answers until " + deadline.In(ny).Format("Mon 2 Jan, 15:04") + " </p>"; !strings.Contains(body, want) {
		t.Errorf("header %q; want %q", grab(body, "answers until"), want)
	}
}

// repeatedHourPoll makes a Berlin poll over 2027-10-31, when 02:00-03:00
// happens twice, with Ada free in both passes of 02:00-02:30 (typed in
// Berlin time: the clock shows it twice, slots.go) and Grace in the second
// only (typed in UTC, 01:00-01:30).
func repeatedHourPoll(s *site) (pub string) {
	s.t.Helper()
	f := url.Values{"title": {"Night shift"}, "start_date": {"2027-10-30"}, "end_date": {"2027-10-31"},
		"day_start": {"01:00"}, "day_end": {"04:00"}, "tz": {"Europe/Berlin"}, "duration": {"30"}}
	admin := s.mustRedirect(s.post("/meet/polls", f))
	pub = admin[:strings.Index(admin, "/admin/")]
	ada, grace := s.join(pub, "Ada"), s.join(pub, "Grace")
	s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {"2027-10-31"}, "start": {"02:00"}, "end": {"02:30"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}))
	s.mustRedirect(s.post(grace+"/timeframes", url.Values{"date": {"2027-10-31"}, "start": {"01:00"}, "end": {"01:30"}, "tier": {"1"}, "tz": {"UTC"}}))
	return pub
}

// TestRepeatedHourOnPage: the two passes of a repeated hour read
// differently in the best times and the grid of the poll page.
func TestRepeatedHourOnPage(t *testing.T) {
	s := newSite(t, apptest.Start(t, ""))
	pub := repeatedHourPoll(s)
	_, body := s.get(pub)
	for _, want := range []string{"Sun 31 Oct, 02:00 (UTC+2)–02:30 (UTC+2)", "Sun 31 Oct, 02:00 (UTC+1)–02:30 (UTC+1)", "02:00 (2nd, UTC+1)"} {
		if !strings.Contains(body, want) {
			t.Errorf("poll page lacks %q:\n%s", want, grab(body, `<ol class="best-list">`))
		}
	}
}

// TestZoneLinkFromElsewhereKeepsNothing: ?tz= shows the page in that zone;
// only the switcher on our own pages (Sec-Fetch-Site: same-origin) or the
// viewer's own typed or bookmarked link (none) keeps it as their zone. A link on another site changes no preference: a GET
// from elsewhere changes nothing.
func TestZoneLinkFromElsewhereKeepsNothing(t *testing.T) {
	s := newSite(t, apptest.Start(t, ""))
	pub, _ := s.createPoll("Zones")
	for _, c := range []struct {
		site string
		keep bool
	}{{"cross-site", false}, {"same-site", false}, {"", false}, {"none", true}, {"same-origin", true}} {
		resp, body := s.do("GET", pub+"?tz=Asia/Tokyo", nil, http.Header{"Sec-Fetch-Site": {c.site}})
		if !strings.Contains(body, `data-zone="Asia/Tokyo"`) {
			t.Errorf("%s: the page is not shown in Asia/Tokyo", c.site)
		}
		kept := strings.Contains(strings.Join(resp.Header.Values("Set-Cookie"), ";"), "meet_tz=")
		if kept != c.keep {
			t.Errorf("Sec-Fetch-Site %s: zone cookie set = %v; want %v", c.site, kept, c.keep)
		}
	}
}
