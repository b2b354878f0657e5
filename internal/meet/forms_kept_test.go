package meet_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// wantKept checks a refused form: the status, a message, and every typed
// value on the page again.
func wantKept(t *testing.T, what string, res *http.Response, body string, status int, msg string, kept ...string) {
	t.Helper()
	if res.StatusCode != status {
		t.Errorf("%s: status %d; want %d", what, res.StatusCode, status)
	}
	if !strings.Contains(body, msg) {
		t.Errorf("%s: no message %q:\n%s", what, msg, grab(body, "<main"))
	}
	for _, k := range kept {
		if !strings.Contains(body, k) {
			t.Errorf("%s: the page lost what was typed, %q:\n%s", what, k, grab(body, "<main"))
		}
	}
}

// TestRefusedFormsKeepTyped is issue item 17 for meet: every form of meet,
// refused, comes back with everything typed (a class per form: create,
// edit, join, timeframe, comment, close, import), and nothing is written.
// A poll locked between loading the page and posting (closed by the
// organizer) refuses a timeframe or a comment with the page again, the text
// kept, rather than an error page that loses it; a refused timeframe keeps
// the zone its times were typed in.
func TestRefusedFormsKeepTyped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		s := newSite(t, m)

		// Create: a bad end date; the rest as typed.
		f := url.Values{"title": {"Kept title"}, "description": {"Kept description"}, "start_date": {"2030-02-10"},
			"end_date": {"2030-02-01"}, "day_start": {"08:15"}, "day_end": {"18:45"}, "tz": {"America/Santiago"},
			"duration": {"90"}, "deadline": {"2030-02-09T12:30"}}
		res, body := s.post("/meet/polls", f)
		wantKept(t, "create", res, body, http.StatusUnprocessableEntity, `aria-invalid="true"`,
			`value="Kept title"`, ">Kept description</textarea>", `value="2030-02-10"`, `value="2030-02-01"`,
			`<option value="08:15" selected>`, `<option value="18:45" selected>`, `<option value="America/Santiago" selected>`,
			`<option value="90" selected>`, `value="2030-02-09T12:30"`)
		if n := s.pollCount(); n != 0 {
			t.Errorf("a refused create wrote %d polls", n)
		}

		admin := s.mustRedirect(s.post("/meet/polls", url.Values{"title": {"Kept"}, "start_date": {"2030-02-10"},
			"end_date": {"2030-02-12"}, "day_start": {"09:00"}, "day_end": {"17:00"}, "tz": {"Europe/Berlin"}, "duration": {"60"}}))
		pub := admin[:strings.Index(admin, "/admin/")]

		// Edit: an empty title; the rest as typed.
		res, body = s.post(admin, url.Values{"title": {""}, "description": {"New words"}, "start_date": {"2030-02-11"},
			"end_date": {"2030-02-13"}, "day_start": {"10:00"}, "day_end": {"16:00"}, "tz": {"Europe/Berlin"}, "duration": {"30"}})
		wantKept(t, "edit", res, body, http.StatusUnprocessableEntity, "Give the poll a title.",
			">New words</textarea>", `value="2030-02-11"`, `value="2030-02-13"`, `<option value="10:00" selected>`,
			`<option value="16:00" selected>`, `<option value="30" selected>`)

		// Join: a name taken.
		ada := s.join(pub, "Ada")
		res, body = s.post(pub+"/participants", url.Values{"name": {"Ada"}})
		wantKept(t, "join, name taken", res, body, http.StatusUnprocessableEntity, "already uses that name", `value="Ada"`)

		// Timeframe: outside the hours, typed in New York time while the
		// page is shown in Berlin; comment: empty after spaces.
		res, body = s.post(ada+"/timeframes", url.Values{"date": {"2030-02-10"}, "start": {"01:00"}, "end": {"02:15"}, "tier": {"3"}, "tz": {"America/New_York"}})
		wantKept(t, "timeframe", res, body, http.StatusUnprocessableEntity, "outside the poll",
			`value="2030-02-10"`, `value="01:00"`, `value="02:15"`, `<option value="3" selected>`,
			`name="tz" value="America/New_York"`, "Times in America/New_York.")
		res, body = s.post(ada+"/comments", url.Values{"body": {"   "}})
		wantKept(t, "comment", res, body, http.StatusUnprocessableEntity, "Write something first.", `name="body"`)

		// Close: a start outside the poll; choice, date, time, length kept.
		res, body = s.post(admin+"/close", url.Values{"choice": {"other"}, "date": {"2030-03-01"}, "time": {"11:45"}, "duration": {"45"}, "tz": {"Asia/Tokyo"}})
		wantKept(t, "close", res, body, http.StatusUnprocessableEntity, "not inside the poll",
			`value="other" id="close-other" checked`, `value="2030-03-01"`, `<option value="11:45" selected>`,
			`<option value="45" selected>`, `name="tz" value="Asia/Tokyo"`, "Start (Asia/Tokyo)")

		// Import without a file: the message, on Ada's page.
		res, body = s.post(ada+"/busy", url.Values{})
		wantKept(t, "import", res, body, http.StatusUnprocessableEntity, `id="calendar"`)

		// The poll is closed while Ada types: her timeframe and comment
		// come back with the reason and what she typed.
		s.mustRedirect(s.post(admin+"/close", url.Values{"choice": {"other"}, "date": {"2030-02-10"}, "time": {"09:00"}, "tz": {"Europe/Berlin"}}))
		res, body = s.post(ada+"/timeframes", url.Values{"date": {"2030-02-11"}, "start": {"09:00"}, "end": {"10:30"}, "tier": {"2"}, "tz": {"Europe/Berlin"}})
		wantKept(t, "timeframe on a locked poll", res, body, http.StatusConflict, "This poll is locked",
			`value="2030-02-11"`, `value="09:00"`, `value="10:30"`, `<option value="2" selected>`)
		res, body = s.post(ada+"/comments", url.Values{"body": {"Thursday suits me better, sorry"}})
		wantKept(t, "comment on a locked poll", res, body, http.StatusConflict, "This poll is locked",
			">Thursday suits me better, sorry</textarea>")
		if list := s.timeframes(ada); strings.Contains(list, "<li>") {
			t.Errorf("a refused timeframe was written:\n%s", list)
		}
		if _, body := s.get(pub); strings.Contains(body, "Thursday suits me") {
			t.Error("a refused comment was written")
		}
	})
}
