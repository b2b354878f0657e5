package meet_test

import (
	"context"
	"database/sql"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestPollDuration: a poll asks for a meeting length; the best times rank
// start times by who is free for all of it, and the organizer closes the poll
// on any start and length the poll holds, checked on the server.
func TestPollDuration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		start := time.Now().AddDate(0, 0, 10)
		day := start.Format("2006-01-02")

		// Bad lengths: not on the quarter hour, too long for the daily hours.
		for _, c := range []struct{ dur, msg string }{
			{"20", "15 minutes to a day"},
			{"0", "15 minutes to a day"},
			{"1455", "15 minutes to a day"},
			{"600", "does not fit in the daily hours"},
		} {
			form := pollForm("Workshop", start)
			form.Set("duration", c.dur)
			res, body := s.post("/meet/polls", form)
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `id="duration-error"`) || !strings.Contains(body, c.msg) {
				t.Errorf("duration %s: status %d; want 422 with %q at the field", c.dur, res.StatusCode, c.msg)
			}
		}
		if n := s.pollCount(); n != 0 {
			t.Fatalf("%d polls written by bad forms; want 0", n)
		}

		form := pollForm("Workshop", start)
		form.Set("duration", "120")
		admin := s.mustRedirect(s.post("/meet/polls", form))
		pub := admin[:strings.Index(admin, "/admin/")]
		_, body := s.get(admin)
		if !strings.Contains(body, `<option value="120" selected>2 h</option>`) {
			t.Errorf("the edit form does not show the 2 h length")
		}

		// Ada is free 09:00-11:00, Bob 10:00-10:30: together for half an
		// hour only. For a two-hour meeting the best start is 09:00, Ada alone.
		ada, bob := s.join(pub, "Ada"), s.join(pub, "Bob")
		add := func(own, from, to, tier string) {
			s.mustRedirect(s.post(own+"/timeframes", url.Values{"date": {day}, "start": {from}, "end": {to}, "tier": {tier}, "tz": {"Europe/Berlin"}}))
		}
		add(ada, "09:00", "11:00", "1")
		add(bob, "10:00", "10:30", "1")
		_, body = s.get(pub)
		best := grab(body, "best-list")
		if !strings.Contains(best, "09:00–11:00</strong>") || !strings.Contains(best, "1 of 2 free") || strings.Contains(best, "2 of 2 free") {
			t.Errorf("best times for a 2 h meeting = %s; want 09:00–11:00 with 1 of 2 free first, never 2 of 2", best)
		}
		if !strings.Contains(body, "2 h meeting") {
			t.Errorf("the poll page does not say how long the meeting is")
		}

		// Closing: bad choices are refused with a message, nothing written.
		closed := func() (sql.NullInt64, sql.NullInt64) {
			var cs, ce sql.NullInt64
			if err := m.DB.QueryRow(context.Background(), "SELECT closed_start, closed_end FROM meet_polls").Scan(&cs, &ce); err != nil {
				t.Fatal(err)
			}
			return cs, ce
		}
		other := func(date, at, dur string) url.Values {
			return url.Values{"choice": {"other"}, "date": {date}, "time": {at}, "duration": {dur}, "tz": {"Europe/Berlin"}}
		}
		for _, c := range []struct {
			name, field, msg string
			form             url.Values
		}{
			{"runs past the daily hours", "duration", "runs past the", other(day, "16:30", "60")},
			{"before the daily hours", "start", "is not inside the", other(day, "08:00", "60")},
			{"after the last date", "start", "is not inside the", other(start.AddDate(0, 0, 3).Format("2006-01-02"), "10:00", "60")},
			{"not a quarter hour", "start", "on the quarter hour", other(day, "10:10", "60")},
			{"bad length", "duration", "15 minutes to a day", other(day, "10:00", "50")},
			{"unknown proposal", "start", "proposed times", url.Values{"choice": {"yesterday"}}},
		} {
			res, body := s.post(admin+"/close", c.form)
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `id="`+c.field+`-error"`) || !strings.Contains(body, c.msg) {
				t.Errorf("close %s: status %d; want 422 with %q at %s", c.name, res.StatusCode, c.msg, c.field)
			}
			if cs, _ := closed(); cs.Valid {
				t.Fatalf("close %s: the poll was closed", c.name)
			}
		}
		// Any start the poll holds, any length: 14:00 for 90 minutes, a time
		// nobody proposed, on the second day.
		second := start.AddDate(0, 0, 1).Format("2006-01-02")
		s.mustRedirect(s.post(admin+"/close", other(second, "14:00", "90")))
		berlin, _ := time.LoadLocation("Europe/Berlin")
		want, _ := time.ParseInLocation("2006-01-02 15:04", second+" 14:00", berlin)
		if cs, ce := closed(); cs.Int64 != want.Unix() || ce.Int64 != want.Add(90*time.Minute).Unix() {
			t.Errorf("closed on %v-%v; want %v for 90 minutes", time.Unix(cs.Int64, 0).UTC(), time.Unix(ce.Int64, 0).UTC(), want.UTC())
		}
		_, body = s.get(pub)
		if d := grab(body, "decision"); !strings.Contains(d, "14:00–15:30") {
			t.Errorf("decision = %s; want 14:00–15:30", d)
		}
		_, ics := s.get(pub + "/event.ics")
		if !strings.Contains(ics, "DTSTART:"+want.UTC().Format("20060102T150405Z")) || !strings.Contains(ics, "DTEND:"+want.Add(90*time.Minute).UTC().Format("20060102T150405Z")) {
			t.Errorf(".ics does not hold the chosen start and length:\n%s", ics)
		}
		// Reopen, then close on the first proposal with the poll's length.
		s.mustRedirect(s.post(admin+"/reopen", nil))
		_, body = s.get(admin)
		choice := regexp.MustCompile(`name="choice" value="([^"]+)" checked`).FindStringSubmatch(body)
		if choice == nil || choice[1] == "other" {
			t.Fatalf("admin page does not propose the best time first: %v", choice)
		}
		s.mustRedirect(s.post(admin+"/close", url.Values{"choice": {choice[1]}}))
		if cs, ce := closed(); time.Duration(ce.Int64-cs.Int64)*time.Second != 2*time.Hour {
			t.Errorf("closed on a proposal for %v; want the poll's 2 h", time.Duration(ce.Int64-cs.Int64)*time.Second)
		}
	})
}
