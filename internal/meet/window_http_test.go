package meet_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestRepeatedHourWindowOverHTTP is issue item 15 as a person meets it, on
// Santiago's 2027-04-03, when 23:00-24:00 happens twice: a timeframe typed
// 23:45-24:00 is the two quarter hours the clock shows so (not 75
// minutes), and a poll of an hour in the window 23:45-24:00 is refused with
// the form kept.
func TestRepeatedHourWindowOverHTTP(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		f := url.Values{"title": {"Late"}, "start_date": {"2027-04-03"}, "end_date": {"2027-04-03"},
			"day_start": {"22:00"}, "day_end": {"24:00"}, "tz": {"America/Santiago"}, "duration": {"15"}}
		admin := s.mustRedirect(s.post("/meet/polls", f))
		pub := admin[:strings.Index(admin, "/admin/")]
		ada := s.join(pub, "Ada")
		s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {"2027-04-03"}, "start": {"23:45"}, "end": {"24:00"}, "tier": {"1"}, "tz": {"America/Santiago"}}))
		list := s.timeframes(ada)
		if strings.Count(list, "<li>") != 2 || !strings.Contains(list, "Sat 3 Apr, 23:45 (UTC−3)–24:00 (UTC−3) · preferred") ||
			!strings.Contains(list, "Sat 3 Apr, 23:45 (UTC−4)–24:00 · preferred") {
			t.Errorf("Ada's timeframes; want the two passes of 23:45-24:00:\n%s", list)
		}
		// The CSV export has the same two quarter hours.
		_, csv := s.get(pub + "/export.csv")
		for _, want := range []string{"2027-04-03T23:45:00-03:00,2027-04-04T00:00:00-03:00", "2027-04-03T23:45:00-04:00,2027-04-04T00:00:00-04:00"} {
			if !strings.Contains(csv, want) {
				t.Errorf("CSV lacks %s:\n%s", want, csv)
			}
		}

		f = url.Values{"title": {"Too long"}, "start_date": {"2027-04-03"}, "end_date": {"2027-04-03"},
			"day_start": {"23:45"}, "day_end": {"24:00"}, "tz": {"America/Santiago"}, "duration": {"60"}}
		res, body := s.post("/meet/polls", f)
		if res.StatusCode != http.StatusUnprocessableEntity && res.StatusCode != http.StatusBadRequest {
			t.Fatalf("an hour in 23:45-24:00: status %d; want a refusal", res.StatusCode)
		}
		if !strings.Contains(body, "does not fit in the daily hours") || !strings.Contains(body, `value="Too long"`) {
			t.Errorf("the refusal does not say why or loses the title:\n%s", grab(body, "<main"))
		}
	})
}
