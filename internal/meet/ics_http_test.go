package meet_test

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/meet"
)

// TestEventICSDescriptionLineBreak: a description typed in a browser has
// CRLF line breaks; the closed poll's .ics was then a 200 with 0 bytes.
func TestEventICSDescriptionLineBreak(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		form := pollForm("Dinner, with; friends", time.Now().AddDate(0, 0, 10))
		form.Set("description", "Line one\r\nLine two, with; punctuation\r\n\r\nBring food")
		admin := s.mustRedirect(s.post("/meet/polls", form))
		pub := strings.Split(admin, "/admin/")[0]
		ada := s.join(pub, "Ada")
		day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
		s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {day}, "start": {"10:00"}, "end": {"11:30"}, "tier": {"1"}, "tz": {"Europe/Berlin"}}))
		_, body := s.get(admin)
		choice := regexp.MustCompile(`name="choice" value="([^"]+)"`).FindStringSubmatch(body)
		if choice == nil {
			t.Fatalf("admin page offers no time to close on")
		}
		s.mustRedirect(s.post(admin+"/close", url.Values{"choice": {choice[1]}}))

		res, ics := s.get(pub + "/event.ics")
		if res.StatusCode != 200 || len(ics) == 0 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/calendar") {
			t.Fatalf(".ics: status %d, %d bytes, %q; want 200 with a calendar", res.StatusCode, len(ics), res.Header.Get("Content-Type"))
		}
		if !strings.Contains(ics, `DESCRIPTION:Line one\nLine two\, with\; punctuation\n\nBring food\n\n`) {
			t.Errorf(".ics description not escaped as RFC 5545 TEXT:\n%s", ics)
		}
		ev := meet.ReadWithICalendar(t, []byte(ics))
		berlin, _ := time.LoadLocation("Europe/Berlin")
		start, _ := time.ParseInLocation("2006-01-02 15:04", day+" 10:00", berlin)
		const iso = "2006-01-02T15:04:05-07:00"
		wantDesc := "Line one\nLine two, with; punctuation\n\nBring food\n\n" + s.base + pub
		if ev.Events != 1 || len(ev.Errors) > 0 || ev.Summary != "Dinner, with; friends" || ev.Description != wantDesc ||
			ev.Start != start.UTC().Format(iso) || !strings.HasPrefix(ev.End, start.UTC().Format("2006-01-02T")) {
			t.Errorf("python3-icalendar reads %+v;\nwant the summary, description %q, start %s", ev, wantDesc, start.UTC().Format(iso))
		}
	})
}
