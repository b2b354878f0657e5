package race_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/pay"
)

var (
	tags   = regexp.MustCompile(`(?s)<[^>]*>`)
	amount = regexp.MustCompile(`\d+\.\d\d( [A-Z]{3}\b)?`)
)

// bareAmounts are the amounts in page's text (not its tags' attributes:
// a form's value) that do not name their currency.
func bareAmounts(page string) []string {
	var bare []string
	for _, m := range amount.FindAllStringSubmatch(tags.ReplaceAllString(page, " "), -1) {
		if m[1] == "" {
			bare = append(bare, m[0])
		}
	}
	return bare
}

// Every amount a runner or a director reads names its currency: the race
// page, the wizard's pages (donation, store, review, payment), the
// confirmation, the director's events, extras, registrants and check-in
// pages, the price fields' labels, the CSV's money columns, and a
// refused donation's message.
func TestEveryAmountNamesItsCurrency(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		admin := "/race/r/" + slug + "/admin"
		dir.to(dir.Post(admin+"/extras", url.Values{"teams": {"on"}, "fundraiser": {"Harbour Trust"}}))
		dir.to(dir.Post(admin+"/items", url.Values{"name": {"Shirt"}, "price": {"12"}, "stock": {"5"}}))
		dir.to(dir.Post(admin+"/codes", url.Values{"code": {"club-25"}, "percent": {"25"}}))
		pages := map[string]string{}
		look := func(p *person, path string) string {
			t.Helper()
			res, body := p.Get(path)
			apptest.WantStatus(t, res, body, http.StatusOK)
			pages[path] = body
			return body
		}
		rita := signedIn(t, m, "rita")
		ev := eventID.FindStringSubmatch(look(rita, "/race/r/"+slug))
		look(rita, "/race/r/"+slug+"/register?event="+ev[1])
		path, _ := rita.to(rita.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
		entry := strings.TrimSuffix(path, "/details")
		rita.to(rita.Post(entry+"/details", url.Values{"first_name": {"Rita"}, "last_name": {"Runner"}, "email": {"rita@example.com"},
			"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}))
		rita.to(rita.Post(entry+"/team", url.Values{"team": {"Pier Pacers"}}))
		look(rita, entry+"/donation")
		res, body := rita.Post(entry+"/donation", url.Values{"amount": {"other"}, "other": {"10000.01"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		pages["the donation refused"] = body
		if !regexp.MustCompile(`15\.50 USD\.`).MatchString(body) {
			t.Errorf("a donation over the limit: %.2000s", body)
		}
		rita.to(rita.Post(entry+"/donation", url.Values{"amount": {"other"}, "other": {"7.50"}}))
		q := itemQty.FindStringSubmatch(look(rita, entry+"/store"))
		rita.to(rita.Post(entry+"/store", url.Values{q[1]: {"2"}}))
		rita.to(rita.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
		look(rita, entry+"/review")
		rita.to(rita.Post(entry+"/code", url.Values{"code": {"club-25"}}))
		look(rita, entry+"/pay")
		res, body = rita.Post(entry+"/pay", url.Values{"card": {pay.CardPaid}})
		apptest.WantRedirect(t, res, body)
		written(t, m, entry)
		look(rita, entry+"/done")
		look(rita, "/race/mine")
		for _, p := range []string{admin, admin + "/events", admin + "/extras", admin + "/codes",
			admin + "/events/" + ev[1] + "/entrants", admin + "/events/" + ev[1] + "/checkin"} {
			look(dir, p)
		}
		for path, body := range pages {
			if bare := bareAmounts(body); len(bare) > 0 {
				t.Errorf("%s shows %q without a currency", path, bare)
			}
		}
		if ev := pages[admin+"/events"]; !strings.Contains(ev, "Price (USD)") {
			t.Errorf("the events page's price field does not name the currency: %.3000s", ev)
		}
		if ex := pages[admin+"/extras"]; !strings.Contains(ex, "Price (USD)") || !strings.Contains(ex, "12.00 USD each") {
			t.Errorf("the extras page's items do not name the currency: %.3000s", ex)
		}
		if done := pages[entry+"/done"]; !strings.Contains(done, "Paid</dt><dd>") || !strings.Contains(done, "USD</dd>") {
			t.Errorf("the confirmation: %.3000s", done)
		}
		_, csv := dir.Get(admin + "/events/" + ev[1] + "/entrants.csv")
		if !strings.Contains(csv, ",donation_USD,store_items,amount_USD,") {
			t.Errorf("the CSV's money columns do not name the currency: %.300s", csv)
		}
	})
}
