package meet_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// The shared text rules hold in meet's forms: a right-to-left override
// (U+202E) is refused in a poll's title and description, a participant's
// name and a comment, with a written message, and nothing is written.
func TestFormsRefuseBidiOverride(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		const want = "changes the direction of text (U+202E)"
		for _, field := range []string{"title", "description"} {
			form := pollForm("Offsite", time.Now().AddDate(0, 0, 5))
			form.Set(field, "txt\u202eexe.poll")
			res, body := s.post("/meet/polls", form)
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, want) {
				t.Errorf("%s with U+202E: %d; want 422 and %q", field, res.StatusCode, want)
			}
		}
		if n := s.pollCount(); n != 0 {
			t.Errorf("%d polls written; want 0", n)
		}
		pub, _ := s.createPoll("Rights")
		res, body := s.post(pub+"/participants", url.Values{"name": {"Ada\u202eecalevoL"}})
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "Your name contains a character that "+want) {
			t.Errorf("name with U+202E: %d; want 422 and %q", res.StatusCode, want)
		}
		ada := s.join(pub, "Ada")
		res, body = s.post(ada+"/comments", url.Values{"body": {"see \u202eattached"}})
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "The comment contains a character that "+want) {
			t.Errorf("comment with U+202E: %d; want 422 and %q", res.StatusCode, want)
		}
		var n int
		m.DB.QueryRow(context.Background(), "SELECT COUNT(*) FROM meet_participants").Scan(&n)
		if n != 1 {
			t.Errorf("%d participants; want 1 (Ada)", n)
		}
		m.DB.QueryRow(context.Background(), "SELECT COUNT(*) FROM meet_comments").Scan(&n)
		if n != 0 {
			t.Errorf("%d comments written; want 0", n)
		}
	})
}

// The participant's timeframe form answers a time outside the poll with a
// written message, not the text of an internal error.
func TestTimeframeOutsidePollMessage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Rights")
		ada := s.join(pub, "Ada")
		for _, tc := range []struct{ name, day, start, end string }{
			{"day after the poll", time.Now().AddDate(0, 0, 30).Format("2006-01-02"), "09:00", "10:00"},
			{"before the daily start", time.Now().AddDate(0, 0, 10).Format("2006-01-02"), "07:00", "10:00"},
		} {
			tf := url.Values{"date": {tc.day}, "start": {tc.start}, "end": {tc.end}, "tier": {"1"}, "tz": {"Europe/Berlin"}}
			res, body := s.post(ada+"/timeframes", tf)
			body = html.UnescapeString(body)
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, "That time is outside the poll's dates and daily hours.") {
				t.Errorf("%s: %d; want 422 and the written message", tc.name, res.StatusCode)
			}
			for _, leak := range []string{"the start is not inside", "the time is not inside", "outside the poll: "} {
				if strings.Contains(body, leak) {
					t.Errorf("%s: the page shows an error's text %q", tc.name, leak)
				}
			}
		}
	})
}

// The painted grid's JSON: bad input is a problem whose field message is
// written for the user, not an error's text.
func TestAvailabilityProblemMessage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)
		pub, _ := s.createPoll("Rights")
		ada := s.join(pub, "Ada")
		day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
		slot := slotAt(t, day, "Europe/Berlin", "09:00")
		for _, tc := range []struct{ body, want string }{
			{`{"slots":[{"start":"` + slot + `","tier":5}]}`, `"slots":"Each tier must be 1, 2 or 3."`},
			{`{"slots":[{"start":"1999-01-01T00:00:00Z","tier":1}]}`, `"slots":"1999-01-01T00:00:00Z is not a time of this poll."`},
			{`not json`, `"slots":"The availability could not be read as JSON."`},
		} {
			res, body := s.do("POST", ada+"/availability", strings.NewReader(tc.body), http.Header{"Content-Type": {"application/json"}})
			if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, tc.want) {
				t.Errorf("%s: %d %s; want 422 with %s", tc.body, res.StatusCode, body, tc.want)
			}
		}
	})
}
