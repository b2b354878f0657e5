package race_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// Codes over HTTP: only directors see and make them; an early-access code
// holds a place in an event that is not open yet (a wrong one is refused
// with nothing held); a discount code on the payment page lowers the
// amount, and can be taken off again.
func TestCodesThroughTheWizard(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		admin := "/race/r/" + slug + "/admin"
		rita := signedIn(t, m, "rita")
		res, body := rita.Get(admin + "/codes")
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = rita.Post(admin+"/codes", url.Values{"code": {"MINE"}, "percent": {"100"}})
		apptest.WantStatus(t, res, body, http.StatusForbidden)

		// A second event, opening tomorrow.
		ny := mustZone(t, "America/New_York")
		tomorrow := time.Now().In(ny).AddDate(0, 0, 1)
		res, body = dir.Post(admin+"/events", url.Values{"name": {"10K"}, "start_time": {"09:00"},
			"opens_date": {tomorrow.Format(time.DateOnly)}, "opens_time": {"08:00"},
			"closes_date": {tomorrow.AddDate(0, 0, 20).Format(time.DateOnly)}, "closes_time": {"12:00"}, "price": {"40"}, "cap": {"10"}})
		apptest.WantRedirect(t, res, body)
		res, body = dir.Post(admin+"/codes", url.Values{"code": {"<b>"}, "percent": {"10"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		dir.to(dir.Post(admin+"/codes", url.Values{"code": {"club-25"}, "percent": {"25"}, "max_uses": {"3"}}))
		_, body = dir.to(dir.Post(admin+"/codes", url.Values{"code": {"EARLY-BIRD"}, "early": {"on"}}))
		if !strings.Contains(body, "CLUB-25") || !strings.Contains(body, "25 % off") || !strings.Contains(body, "early access") {
			t.Fatalf("codes page: %.3000s", body)
		}

		_, page := rita.Get("/race/r/" + slug)
		early := regexp.MustCompile(`href="(/race/r/[^"]+/early\?event=(\d+))"`).FindStringSubmatch(page)
		if early == nil {
			t.Fatalf("no early-access link on the race page: %.3000s", page)
		}
		res, body = rita.Get(early[1])
		apptest.WantStatus(t, res, body, http.StatusOK)
		res, body = rita.Post("/race/r/"+slug+"/early", url.Values{"event": {early[2]}, "code": {"CLUB-25"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "not an early-access code") {
			t.Errorf("a discount code as early access: %.2000s", body)
		}
		path, _ := rita.to(rita.Post("/race/r/"+slug+"/early", url.Values{"event": {early[2]}, "code": {"early-bird"}}))
		if !strings.HasSuffix(path, "/details") {
			t.Fatalf("after the early-access code: %s", path)
		}
		entry := strings.TrimSuffix(path, "/details")
		rita.to(rita.Post(entry+"/details", url.Values{"first_name": {"Rita"}, "last_name": {"Runner"}, "email": {"r@example.com"},
			"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}))
		rita.to(rita.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
		res, body = rita.Get(entry + "/pay")
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "EARLY-BIRD") || !strings.Contains(body, "40.00 USD") {
			t.Fatalf("payment page with the early code: %.2000s", body)
		}
		// Before the opening the early code stays on her place.
		res, body = rita.Post(entry+"/code", url.Values{"code": {"club-25"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "stays on until registration opens") {
			t.Errorf("swapping the early code before the opening: %.2000s", body)
		}
		// The discount, on her entry to the 5K (open now).
		ev := eventID.FindStringSubmatch(page)
		path, _ = rita.to(rita.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
		entry = strings.TrimSuffix(path, "/details")
		rita.to(rita.Post(entry+"/details", url.Values{"first_name": {"Rita"}, "last_name": {"Runner"}, "email": {"r@example.com"},
			"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}))
		rita.to(rita.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
		res, body = rita.Post(entry+"/code", url.Values{"code": {"CLUB-99"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "no such code") {
			t.Errorf("a wrong code: %.2000s", body)
		}
		_, body = rita.to(rita.Post(entry+"/code", url.Values{"code": {"club-25"}}))
		if !strings.Contains(body, "CLUB-25") || !strings.Contains(body, "19.13 USD") { // 25.50 less 25 %, rounded for the runner
			t.Fatalf("payment page with the discount: %.2000s", body)
		}
		// Someone else cannot put a code on her entry.
		otto := signedIn(t, m, "otto")
		res, body = otto.Post(entry+"/code", url.Values{"remove": {"1"}})
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		_, body = rita.to(rita.Post(entry+"/code", url.Values{"remove": {"1"}}))
		if strings.Contains(body, "CLUB-25") || !strings.Contains(body, "25.50 USD") {
			t.Errorf("payment page after removing the code: %.2000s", body)
		}
		_, body = rita.to(rita.Post(entry+"/code", url.Values{"code": {"CLUB-25"}}))
		res, body = rita.Post(entry+"/pay", url.Values{"card": {"4242 4242 4242 4242"}})
		apptest.WantRedirect(t, res, body)
		_, body = dir.Get(admin + "/codes")
		if !strings.Contains(strings.Join(strings.Fields(body), " "), "1 of 3") {
			t.Errorf("codes page after a use: %.3000s", body)
		}
	})
}
