package race_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

var itemQty = regexp.MustCompile(`name="(qty-\d+)"`)

// The extras over HTTP: only directors set them up; a runner's wizard
// gains the team, donation and store pages in order, bad input is refused
// with the form again and nothing held, and a store item sold out is
// said so on the page.
func TestExtrasThroughTheWizard(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		admin := "/race/r/" + slug + "/admin"
		rita := signedIn(t, m, "rita")
		// Not hers to set up.
		res, body := rita.Get(admin + "/extras")
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = rita.Post(admin+"/items", url.Values{"name": {"Shirt"}, "price": {"1"}, "stock": {"9"}})
		apptest.WantStatus(t, res, body, http.StatusForbidden)

		res, body = dir.Post(admin+"/extras", url.Values{"teams": {"on"}, "fundraiser": {"Harbour\u202eTrust"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		dir.to(dir.Post(admin+"/extras", url.Values{"teams": {"on"}, "fundraiser": {"Harbour Trust"}}))
		res, body = dir.Post(admin+"/items", url.Values{"name": {"Shirt"}, "price": {"12"}, "stock": {"-4"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		_, body = dir.to(dir.Post(admin+"/items", url.Values{"name": {"Shirt"}, "price": {"12"}, "stock": {"1"}}))
		if !strings.Contains(body, "1 left of 1") {
			t.Fatalf("extras page after adding: %.2000s", body)
		}

		res, page := rita.Get("/race/r/" + slug)
		apptest.WantStatus(t, res, page, http.StatusOK)
		ev := eventID.FindStringSubmatch(page)
		if ev == nil || !strings.Contains(page, "Give to Harbour Trust") || !strings.Contains(page, "Shirt: 12.00 USD") {
			t.Fatalf("race page with extras: %.3000s", page)
		}
		start := func(p *person) string {
			path, _ := p.to(p.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
			entry := strings.TrimSuffix(path, "/details")
			path, _ = p.to(p.Post(entry+"/details", url.Values{"first_name": {"R"}, "last_name": {"Runner"}, "email": {"r@example.com"},
				"birth_date": {"1988-02-03"}, "gender": {"X"}, "emergency": {"Al, 555 0100"}}))
			if path != entry+"/team" {
				t.Fatalf("after the details: %s", path)
			}
			return entry
		}
		entry := start(rita)
		res, body = rita.Get(entry + "/store")
		if apptest.WantRedirect(t, res, body) != entry+"/team" {
			t.Errorf("the store before the team page did not send back to it")
		}
		res, body = rita.Post(entry+"/team", url.Values{"team": {"   '' "}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		path, body := rita.to(rita.Post(entry+"/team", url.Values{"team": {"Pier Pacers"}}))
		if path != entry+"/donation" || !strings.Contains(body, "Give to Harbour Trust?") {
			t.Fatalf("after the team: %s %.1000s", path, body)
		}
		res, body = rita.Post(entry+"/donation", url.Values{"amount": {"other"}, "other": {"12.345"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		path, body = rita.to(rita.Post(entry+"/donation", url.Values{"amount": {"other"}, "other": {"7.50"}}))
		q := itemQty.FindStringSubmatch(body)
		if path != entry+"/store" || q == nil {
			t.Fatalf("after the donation: %s %.1000s", path, body)
		}
		res, body = rita.Post(entry+"/store", url.Values{q[1]: {"1e3"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		path, _ = rita.to(rita.Post(entry+"/store", url.Values{q[1]: {"1"}}))
		if path != entry+"/waiver" {
			t.Fatalf("after the store: %s", path)
		}
		// The last shirt is rita's: otto asks for it and is told.
		otto := signedIn(t, m, "otto")
		oentry := start(otto)
		otto.to(otto.Post(oentry+"/team", url.Values{"team": {"pier pacers"}}))
		otto.to(otto.Post(oentry+"/donation", url.Values{"amount": {"0"}}))
		res, body = otto.Post(oentry+"/store", url.Values{q[1]: {"1"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "Sold out, sorry.") {
			t.Errorf("otto's store page: %.2000s", body)
		}
		// Nor can he touch rita's entry.
		res, body = otto.Post(entry+"/store", url.Values{q[1]: {"0"}})
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		path, body = rita.to(rita.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
		if path != entry+"/review" || !strings.Contains(body, "Pier Pacers") || !strings.Contains(body, "45.00 USD") {
			t.Fatalf("review: %s %.2000s", path, body)
		}
		res, body = rita.Post(entry+"/pay", url.Values{"card": {"4242 4242 4242 4242"}})
		apptest.WantRedirect(t, res, body)
		// The confirmation mail lists what was bought, each amount with its
		// currency, and where to manage the registration.
		conf := awaitMail(t, m, "r@example.com", "You're registered")
		for _, want := range []string{"Team: Pier Pacers\n", "Store: 1 × Shirt at 12.00 USD\n", "Donation: 7.50 USD\n",
			"Total paid: 45.00 USD\n", "Manage your registrations: http"} {
			if !strings.Contains(conf.Text, want) {
				t.Errorf("confirmation mail lacks %q:\n%s", want, conf.Text)
			}
		}
		res, body = dir.Get(admin + "/events/" + ev[1] + "/entrants.csv")
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "team,shirt,donation_USD,store_items,amount_USD") {
			t.Errorf("CSV header: %.300s", body)
		}
	})
}
