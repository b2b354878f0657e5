package meet_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// shortDayPoll makes a poll in zone over Sat 27 and Sun 28 March 2027 (Berlin
// skips 02:00-03:00 on the 28th, a 23-hour day), window 00:00-24:00, one
// hour long, with Ada free from 23:00 Berlin time on the 27th to the end of
// the 28th (typed in Berlin time). It returns the poll's public, admin and
// Ada's private paths.
func shortDayPoll(s *site, zone string) (pub, admin, ada string) {
	s.t.Helper()
	f := url.Values{"title": {"Short day"}, "start_date": {"2027-03-27"}, "end_date": {"2027-03-28"},
		"day_start": {"00:00"}, "day_end": {"24:00"}, "tz": {zone}, "duration": {"60"}}
	admin = s.mustRedirect(s.post("/meet/polls", f))
	pub = admin[:strings.Index(admin, "/admin/")]
	ada = s.join(pub, "Ada")
	s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {"2027-03-27"}, "start": {"23:00"}, "end": {"24:00"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}))
	s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {"2027-03-28"}, "start": {"00:00"}, "end": {"24:00"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}))
	return pub, admin, ada
}

// TestRangeLabelsOnShortDayPages is issue item 14 on every page that shows
// a range: Ada's 25 hours of wall clock, 23:00 Saturday to 24:00 Sunday on
// Berlin's 23-hour day, end on Monday: the best times, their "starting any
// time" range, the admin list, her timeframes, the decided time and the
// edit-loss message all say so, and none reads "23:00–00:00" or
// "23:00–23:00".
func TestRangeLabelsOnShortDayPages(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, admin, ada := shortDayPoll(s, "Europe/Berlin")
		const whole = "Sat 27 Mar, 23:00 – Mon 29 Mar, 00:00"
		check := func(what, body string, wants ...string) {
			t.Helper()
			for _, w := range wants {
				if !strings.Contains(body, w) {
					t.Errorf("%s lacks %q:\n%s", what, w, grab(body, "<main"))
				}
			}
			for _, bad := range []string{"23:00–00:00", "23:00–23:00"} {
				if strings.Contains(body, bad) {
					t.Errorf("%s reads %q", what, bad)
				}
			}
		}
		_, body := s.get(pub)
		check("poll page", body, "<strong>"+whole+"</strong>", "1 h, starting any time Sat 27 Mar, 23:00 – Sun 28 Mar, 23:00")
		_, body = s.get(admin)
		check("admin page", body, "Sat 27 Mar, 23:00–24:00 · 1 of 1 free") // the first start, one hour
		_, body = s.get(ada)
		check("Ada's page", body, whole+" · preferred")

		// The same seen from New York, where no clock changes that weekend.
		_, body = s.do("GET", pub, nil, http.Header{"Cookie": {"meet_tz=America/New_York"}})
		check("poll page in New York", body, "Sat 27 Mar, 18:00 – Sun 28 Mar, 18:00", "starting any time Sat 27 Mar, 18:00 – Sun 28 Mar, 17:00")

		// An edit that takes Ada's answers away names them by the same label.
		f := url.Values{"title": {"Short day"}, "start_date": {"2027-03-30"}, "end_date": {"2027-03-31"},
			"day_start": {"00:00"}, "day_end": {"24:00"}, "tz": {"Europe/Berlin"}, "duration": {"60"}}
		res, body := s.post(admin, f)
		if res.StatusCode != http.StatusConflict {
			t.Fatalf("edit: status %d; want 409 asking first", res.StatusCode)
		}
		check("edit-loss message", body, "<strong>Ada</strong> loses "+whole+" (preferred)")

		// Decided on a whole day from 23:00 Saturday: it ends Monday.
		s.mustRedirect(s.post(admin+"/close", url.Values{"choice": {"other"}, "date": {"2027-03-27"}, "time": {"23:00"},
			"duration": {"1440"}, "tz": {"Europe/Berlin"}}))
		_, body = s.get(pub)
		check("decided time on the poll page", body, `<p class="big">`+whole+`</p>`)
		_, body = s.get(admin)
		check("decided time on the admin page", body, "Closed on <strong>"+whole+"</strong>")
	})
}
