package race_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

var editedEvent = regexp.MustCompile(`action="/race/r/[^/"]+/admin/events/(\d+)"`)

// inputValue is the value attribute of the input with id in page ("" and
// false when there is no such input).
func inputValue(page, id string) (string, bool) {
	m := regexp.MustCompile(`<input[^>]*id="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(page)
	if m == "" {
		return "", false
	}
	v := regexp.MustCompile(`value="([^"]*)"`).FindStringSubmatch(m)
	if v == nil {
		return "", true
	}
	return v[1], true
}

// An event form refused says so at the top of the page too, each message a
// link to its field; the form keeps what was typed; the "Add an event"
// form keeps its defaults when another event's form was refused.
func TestEventFormRefusedAtTheTop(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		events := "/race/r/" + slug + "/admin/events"
		f := eventForm(t, "10K", "twelve", "0")
		res, body := dir.Post(events, f)
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		top, _, _ := strings.Cut(body, "Times are")
		for _, want := range []string{`class="flash error error-summary"`, `href="#new-price">Price</a>: Give the price`, `href="#new-cap">Places</a>: Give the number of places`} {
			if !strings.Contains(top, want) {
				t.Errorf("the top of the refused page lacks %q: %.3000s", want, top)
			}
		}
		if v, _ := inputValue(body, "new-price"); v != "twelve" {
			t.Errorf("the price typed: got %q; want twelve", v)
		}
		if v, _ := inputValue(body, "new-name"); v != "10K" {
			t.Errorf("the name typed: got %q; want 10K", v)
		}

		_, page := dir.Get(events)
		ev := editedEvent.FindStringSubmatch(page)
		if ev == nil {
			t.Fatalf("no event form: %.2000s", page)
		}
		f = eventForm(t, "5K", "25.50", "-3")
		res, body = dir.Post(events+"/"+ev[1], f)
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, `href="#e`+ev[1]+`-cap">Places</a>`) {
			t.Errorf("the refused edit is not linked at the top: %.3000s", body)
		}
		if v, _ := inputValue(body, "e"+ev[1]+"-cap"); v != "-3" {
			t.Errorf("the places typed: got %q; want -3", v)
		}
		for id, want := range map[string]string{"new-start": "09:00", "new-price": "0", "new-cap": "500"} {
			if v, _ := inputValue(body, id); v != want {
				t.Errorf("the add form after another form's refusal: %s is %q; want %q (its default)", id, v, want)
			}
		}
	})
}

// The store's banner says what the fields say: a quantity typed wrong is
// not reported as stock running out.
func TestStoreBannerSaysTheFieldsMessage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		admin := "/race/r/" + slug + "/admin"
		dir.to(dir.Post(admin+"/items", url.Values{"name": {"Shirt"}, "price": {"12"}, "stock": {"5"}}))
		rita := signedIn(t, m, "rita")
		entry := startEntry(t, rita, slug)
		res, body := rita.Get(entry + "/store")
		apptest.WantStatus(t, res, body, http.StatusOK)
		q := itemQty.FindStringSubmatch(body)
		if q == nil {
			t.Fatalf("store page: %.2000s", body)
		}
		res, body = rita.Post(entry+"/store", url.Values{q[1]: {"1e3"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if strings.Contains(body, "not that many left") || !strings.Contains(body, `href="#`+q[1]+`">Shirt</a>: Choose from 0 to`) {
			t.Errorf("the banner does not say the field's message: %.3000s", body)
		}
		if v, _ := inputValue(body, q[1]); v != "1e3" {
			t.Errorf("the quantity typed: got %q; want 1e3", v)
		}
	})
}

// startEntry has p hold a place in slug's first event and fill the
// details; it returns the entry's path.
func startEntry(t *testing.T, p *person, slug string) string {
	t.Helper()
	_, page := p.Get("/race/r/" + slug)
	ev := eventID.FindStringSubmatch(page)
	if ev == nil {
		t.Fatalf("race page: %.2000s", page)
	}
	path, _ := p.to(p.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
	entry := strings.TrimSuffix(path, "/details")
	p.to(p.Post(entry+"/details", url.Values{"first_name": {"R"}, "last_name": {"Runner"}, "email": {"r@example.com"},
		"birth_date": {"1988-02-03"}, "gender": {"X"}, "emergency": {"Al, 555 0100"}}))
	return entry
}

// An amount typed under "Another amount" with another choice ticked (the
// page ticks "No donation" to start with) is neither dropped nor taken:
// the page comes back saying so, with the amount kept.
func TestDonationTypedAmountNotDropped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		dir.to(dir.Post("/race/r/"+slug+"/admin/extras", url.Values{"fundraiser": {"Harbour Trust"}}))
		rita := signedIn(t, m, "rita")
		entry := startEntry(t, rita, slug)
		for _, choice := range []string{"0", "2500"} {
			res, body := rita.Post(entry+"/donation", url.Values{"amount": {choice}, "other": {"15"}})
			apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
			if !strings.Contains(body, "You typed an amount here but ticked another choice") {
				t.Errorf("choice %s with 15 typed: %.2000s", choice, body)
			}
			if v, _ := inputValue(body, "other"); v != "15" {
				t.Errorf("the amount typed: got %q; want 15", v)
			}
		}
		// Typed, nothing ticked: the amount typed is given.
		rita.to(rita.Post(entry+"/donation", url.Values{"other": {"15"}}))
		path, body := rita.to(rita.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
		if path != entry+"/review" || !strings.Contains(body, "15.00 USD") {
			t.Errorf("after giving 15 (at %s): the review lacks it: %.3000s", path, body)
		}
	})
}

// Every director form refused for a reason of the whole form (a limit
// reached) or a field comes back with what was typed, not an error page.
func TestDirectorFormsKeepWhatWasTyped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		admin := "/race/r/" + slug + "/admin"
		res, body := dir.Post(admin+"/directors", url.Values{"username": {"nobody-here"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if v, _ := inputValue(body, "username"); v != "nobody-here" {
			t.Errorf("co-director typed: got %q; want nobody-here", v)
		}
		for i := range 20 {
			res, body := dir.Post(admin+"/items", url.Values{"name": {fmt.Sprint("Item ", i)}, "price": {"1"}, "stock": {"1"}})
			apptest.WantRedirect(t, res, body)
		}
		res, body = dir.Post(admin+"/items", url.Values{"name": {"Hoodie"}, "price": {"12.50"}, "stock": {"7"}})
		apptest.WantStatus(t, res, body, http.StatusConflict)
		if !strings.Contains(body, "at most 20 items") {
			t.Errorf("the 21st item: %.2000s", body)
		}
		for id, want := range map[string]string{"new-name": "Hoodie", "new-price": "12.50", "new-stock": "7"} {
			if v, _ := inputValue(body, id); v != want {
				t.Errorf("the refused item form: %s is %q; want %q", id, v, want)
			}
		}
	})
}
