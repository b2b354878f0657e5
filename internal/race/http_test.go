package race_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/race"
)

// person is someone using the site without JavaScript.
type person struct {
	*apptest.Web
	t *testing.T
}

// signedIn is a person with an account, signed in.
func signedIn(t *testing.T, m *app.Main, name string) *person {
	t.Helper()
	m.Auth.SetLimits(auth.Limits{})
	if _, err := m.Auth.Create(context.Background(), auth.Signup{Username: name, Email: name + "@example.com", Password: "password-" + name}); err != nil {
		t.Fatal(err)
	}
	p := &person{apptest.NewWeb(t, m), t}
	res, body := p.Post("/account/login", url.Values{"login": {name}, "password": {"password-" + name}})
	apptest.WantRedirect(t, res, body)
	return p
}

// to follows one redirect of res and returns the page it leads to.
func (p *person) to(res *http.Response, body string) (string, string) {
	p.t.Helper()
	path := apptest.WantRedirect(p.t, res, body)
	loc := res.Header.Get("Location")
	res2, body2 := p.Get(loc)
	apptest.WantStatus(p.t, res2, body2, http.StatusOK)
	return path, body2
}

// publishRace has director d create a race with one event of cap places
// through the director's wizard, and returns its slug.
func publishRace(t *testing.T, d *person, places string) string {
	t.Helper()
	res, body := d.Post("/race/races", url.Values{"name": {"Harbour Run"}, "location": {"Old Harbour"},
		"date": {time.Now().AddDate(0, 2, 0).Format(time.DateOnly)}, "tz": {"America/New_York"}, "currency": {"usd"}})
	path := apptest.WantRedirect(t, res, body)
	slug := strings.TrimSuffix(strings.TrimPrefix(path, "/race/r/"), "/admin/events")
	res, body = d.Post("/race/r/"+slug+"/admin/events", eventForm(t, "5K", "25.50", places))
	apptest.WantRedirect(t, res, body)
	// Publishing without a waiver is refused, and says why.
	res, body = d.Post("/race/r/"+slug+"/admin/publish", nil)
	apptest.WantStatus(t, res, body, http.StatusConflict)
	if !strings.Contains(body, "waiver") {
		t.Errorf("publish without a waiver: %.300s", body)
	}
	res, body = d.Post("/race/r/"+slug+"/admin/text", url.Values{"info": {"Bag drop at the pier."}, "waiver": {"I run at my own risk."}})
	apptest.WantRedirect(t, res, body)
	res, body = d.Post("/race/r/"+slug+"/admin/publish", nil)
	apptest.WantRedirect(t, res, body)
	return slug
}

// eventForm is the events page's form for an event open from an hour ago
// for a month (the race's wall clock is New York's).
func eventForm(t *testing.T, name, price, places string) url.Values {
	now := time.Now().In(mustZone(t, "America/New_York"))
	return url.Values{"name": {name}, "start_time": {"08:00"},
		"opens_date": {now.Add(-time.Hour).Format(time.DateOnly)}, "opens_time": {now.Add(-time.Hour).Format("15:04")},
		"closes_date": {now.AddDate(0, 1, 0).Format(time.DateOnly)}, "closes_time": {"12:00"}, "price": {price}, "cap": {places}}
}

// A payment whose answer was lost: the form again (503) to send once
// more; another card then is the form again (409), telling her the first
// card's payment is being confirmed, nothing charged; the first card
// again finishes it. Behind nginx the proxy sends the 503's request again
// (same request id, same key), which finishes the payment at once: the
// runner never sees the lost answer there.
func TestPaymentAnswerLostThenAnotherCard(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		slug := publishRace(t, signedIn(t, m, "dora"), "10")
		rita := signedIn(t, m, "rita")
		_, page := rita.Get("/race/r/" + slug)
		path, _ := rita.to(rita.Post("/race/r/"+slug+"/register", url.Values{"event": {eventID.FindStringSubmatch(page)[1]}}))
		entry := strings.TrimSuffix(path, "/details")
		rita.to(rita.Post(entry+"/details", url.Values{"first_name": {"Rita"}, "last_name": {"Runner"}, "email": {"rita@example.com"},
			"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}))
		rita.to(rita.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
		res, body := rita.Post(entry+"/pay", url.Values{"card": {pay.CardAnswerLost}})
		if res.StatusCode == http.StatusSeeOther { // behind nginx: it sent the 503 again, and the same key finished the payment
			if path := apptest.WantRedirect(t, res, body); path != entry+"/done" && path != entry+"/wait" {
				t.Errorf("the lost answer sent again by the proxy went to %s", path)
			}
			return
		}
		apptest.WantStatus(t, res, body, http.StatusServiceUnavailable)
		if !strings.Contains(body, `name="card"`) || !strings.Contains(body, "did not answer") {
			t.Errorf("a lost answer's page: %.2000s", body)
		}
		res, body = rita.Post(entry+"/pay", url.Values{"card": {pay.CardPaid}})
		apptest.WantStatus(t, res, body, http.StatusConflict)
		if !strings.Contains(body, `name="card"`) || !strings.Contains(body, "still being confirmed") {
			t.Errorf("another card's page: %.2000s", body)
		}
		res, body = rita.Post(entry+"/pay", url.Values{"card": {pay.CardAnswerLost}})
		if path := apptest.WantRedirect(t, res, body); path != entry+"/done" && path != entry+"/wait" {
			t.Errorf("the first card again went to %s", path)
		}
	})
}

func mustZone(t *testing.T, name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

var eventID = regexp.MustCompile(`name="event" value="(\d+)"`)

// A director publishes a race through the wizard; a new runner signs up on
// the way, registers page by page, is declined once, pays, and sees the
// confirmation; bad input and other people's pages are refused.
func TestRegisterThroughTheWizard(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")

		visitor := &person{apptest.NewWeb(t, m), t}
		res, page := visitor.Get("/race/r/" + slug)
		apptest.WantStatus(t, res, page, http.StatusOK)
		if !strings.Contains(page, "Harbour Run") || !strings.Contains(page, "50</strong> of 50 places left") || !strings.Contains(page, "25.50 USD") {
			t.Fatalf("race page: %.2000s", page)
		}
		ev := eventID.FindStringSubmatch(page)
		if ev == nil {
			t.Fatal("no register form on the race page")
		}
		// Signed out: the first page offers an account.
		res, body := visitor.Get("/race/r/" + slug + "/register?event=" + ev[1])
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "I am new here") {
			t.Fatalf("account page: %.1000s", body)
		}
		m.Auth.SetLimits(auth.Limits{})
		// An e-mail in use is refused on the sign-up form.
		res, body = visitor.Post("/race/r/"+slug+"/account", url.Values{"do": {"signup"}, "event": {ev[1]},
			"username": {"rita"}, "email": {"dora@example.com"}, "password": {"a long password"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		_, body = visitor.to(visitor.Post("/race/r/"+slug+"/account", url.Values{"do": {"signup"}, "event": {ev[1]},
			"username": {"rita"}, "email": {"rita@example.com"}, "password": {"a long password"}}))
		if !strings.Contains(body, "Hold my place") {
			t.Fatalf("event page after sign-up: %.1000s", body)
		}
		rita := visitor
		path, body := rita.to(rita.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
		if !strings.HasSuffix(path, "/details") || !strings.Contains(body, "your place is held for another 20 minutes") {
			t.Fatalf("after holding: %s %.1000s", path, body)
		}
		entry := strings.TrimSuffix(path, "/details")
		// Bad details: the form again, kept, with a message; nothing moves on.
		res, body = rita.Post(entry+"/details", url.Values{"first_name": {"Rita"}, "last_name": {""}, "email": {"rita@example.com"},
			"birth_date": {"2030-01-01"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, `value="Rita"`) || !strings.Contains(body, "at least 5") {
			t.Errorf("details refused: %.1500s", body)
		}
		res, body = rita.Get(entry + "/waiver")
		if apptest.WantRedirect(t, res, body) != entry+"/details" {
			t.Errorf("the waiver before the details did not send back to them")
		}
		rita.to(rita.Post(entry+"/details", url.Values{"first_name": {"Rita"}, "last_name": {"=HYPERLINK(\"x\")"}, "email": {"rita@example.com"},
			"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}))
		res, body = rita.Post(entry+"/waiver", url.Values{})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		path, body = rita.to(rita.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
		if path != entry+"/review" || !strings.Contains(body, "25.50 USD") {
			t.Fatalf("review: %s %.1000s", path, body)
		}
		// Someone else cannot see or pay rita's entry.
		other := signedIn(t, m, "otto")
		res, body = other.Get(entry + "/review")
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		res, body = other.Post(entry+"/pay", url.Values{"card": {pay.CardPaid}})
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		// Declined, then paid.
		res, body = rita.Post(entry+"/pay", url.Values{"card": {pay.CardDeclined}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "declined") {
			t.Errorf("decline page: %.1000s", body)
		}
		res, body = rita.Post(entry+"/pay", url.Values{"card": {"4242 4242 4242 4242"}})
		path = apptest.WantRedirect(t, res, body)
		if strings.HasSuffix(path, "/wait") { // the writer had not caught up: once it has, the waiting page sends her on
			written(t, m, entry)
			res, body = rita.Get(entry + "/wait")
			path = apptest.WantRedirect(t, res, body)
		}
		if path != entry+"/done" {
			t.Fatalf("after paying: %s", path)
		}
		res, body = rita.Get(entry + "/done")
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "You're registered!") || !strings.Contains(body, "Bib <strong>1</strong>") {
			t.Fatalf("confirmation: %.2000s", body)
		}
		// The confirmation mail, from the outbox, with the bib and the
		// start in the race's zone.
		confirmation := awaitMail(t, m, "rita@example.com", "You're registered")
		if confirmation.Subject != "You're registered: Harbour Run · 5K (bib 1)" || !strings.Contains(confirmation.Text, "Bib number: 1\n") ||
			!strings.Contains(confirmation.Text, "Total paid: 25.50 USD\n") || !strings.Contains(confirmation.Text, "08:00 E") || !strings.Contains(confirmation.Text, entry+"/done") {
			t.Errorf("confirmation mail: %q\n%s", confirmation.Subject, confirmation.Text)
		}
		// Registering again: told so, not charged.
		path, body = rita.to(rita.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
		if path != entry+"/done" || !strings.Contains(body, "registered for this event already") {
			t.Errorf("a second registration: %s %.500s", path, body)
		}
		var charges int
		if err := db.Scan(m.DB.QueryRow(context.Background(), `SELECT count(*) FROM pay_test_payments WHERE outcome = 'paid'`), &charges); err != nil || charges != 1 {
			t.Errorf("%d charges (%v); want 1", charges, err)
		}

		// The director sees her, exports her with the formula defused, and
		// only the director may.
		admin := "/race/r/" + slug + "/admin/events/" + ev[1] + "/entrants"
		res, body = dir.Get(admin + "?q=rit")
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "Rita") {
			t.Errorf("entrants search: %.1500s", body)
		}
		res, body = dir.Get(admin + ".csv")
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, `'=HYPERLINK`) || strings.Contains(body, ",=HYPERLINK") {
			t.Errorf("CSV cell not defused: %s", body)
		}
		for _, p := range []*person{other, rita} {
			res, body = p.Get(admin + ".csv")
			apptest.WantStatus(t, res, body, http.StatusForbidden)
			res, body = p.Post("/race/r/"+slug+"/admin/publish", nil)
			apptest.WantStatus(t, res, body, http.StatusForbidden)
		}
		// Race day: the director finds her bib on the check-in list and
		// marks it picked up; a second tap (a stale page) is told so; undo.
		checkin := "/race/r/" + slug + "/admin/events/" + ev[1] + "/checkin"
		res, body = dir.Get(checkin + "?q=rit")
		apptest.WantStatus(t, res, body, http.StatusOK)
		rid := regexp.MustCompile(`/admin/registrations/(\d+)/checkin`).FindStringSubmatch(body)
		if rid == nil || !strings.Contains(body, "<strong>0</strong> of 1 bibs picked up") || !strings.Contains(body, ">Mark picked up</button>") {
			t.Fatalf("check-in list: %.2000s", body)
		}
		pick := "/race/r/" + slug + "/admin/registrations/" + rid[1] + "/checkin"
		for _, p := range []*person{other, rita} {
			res, body = p.Post(pick, nil)
			apptest.WantStatus(t, res, body, http.StatusForbidden)
			res, body = p.Get(checkin)
			apptest.WantStatus(t, res, body, http.StatusForbidden)
		}
		path, body = dir.to(dir.Post(pick, url.Values{"q": {"rit"}}))
		if path != checkin || !strings.Contains(body, "Bib 1 picked up.") || !strings.Contains(body, "<strong>1</strong> of 1 bibs picked up") ||
			!strings.Contains(body, `value="rit"`) || !strings.Contains(body, "Undo") {
			t.Errorf("after the pickup: %s %.2000s", path, body)
		}
		res, body = dir.Post(pick, url.Values{"q": {"rit"}})
		apptest.WantStatus(t, res, body, http.StatusConflict)
		if !strings.Contains(body, "Bib 1 was picked up already.") || !strings.Contains(body, "<strong>1</strong> of 1") {
			t.Errorf("a second pickup: %.2000s", body)
		}
		path, body = dir.to(dir.Post(pick, url.Values{"undo": {"1"}}))
		if !strings.Contains(body, "marked not picked up again") || !strings.Contains(body, "<strong>0</strong> of 1 bibs picked up") {
			t.Errorf("after undo: %s %.2000s", path, body)
		}
		res, body = dir.Post("/race/r/"+slug+"/admin/registrations/999999/checkin", nil)
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		res, body = dir.Post("/race/r/"+slug+"/admin/registrations/999999/cancel", nil)
		apptest.WantStatus(t, res, body, http.StatusNotFound)

		// The race page counts her (within its few seconds of cache).
		if page = placesShown(t, visitor, slug, "49</strong> of 50"); !strings.Contains(page, "49</strong> of 50") {
			t.Errorf("race page after a registration: %.1500s", page)
		}

		// A runner's own registrations are theirs alone.
		_, body = rita.Get("/race/mine")
		if !strings.Contains(body, "Harbour Run") || !strings.Contains(body, "<td>1</td>") {
			t.Errorf("rita's registrations: %.2000s", body)
		}
		_, body = other.Get("/race/mine")
		if strings.Contains(body, "Harbour Run") || !strings.Contains(body, "You have not registered") {
			t.Errorf("otto's registrations show rita's: %.2000s", body)
		}
		res, body = other.Get(entry + "/done")
		apptest.WantStatus(t, res, body, http.StatusNotFound)

		// Only a director cancels, and the place comes back.
		cancel := "/race/r/" + slug + "/admin/registrations/" + rid[1] + "/cancel"
		for _, p := range []*person{other, rita} {
			res, body = p.Post(cancel, nil)
			apptest.WantStatus(t, res, body, http.StatusForbidden)
		}
		if _, body = rita.Get("/race/mine"); !strings.Contains(body, "confirmed") {
			t.Errorf("after refused cancellations rita's registration is not confirmed: %.2000s", body)
		}
		path, _ = dir.to(dir.Post(cancel, nil))
		if !strings.HasSuffix(path, "/entrants") {
			t.Errorf("after the cancellation: %s", path)
		}
		if _, body = rita.Get("/race/mine"); !strings.Contains(body, "cancelled") {
			t.Errorf("rita's registration after the director cancelled it: %.2000s", body)
		}
		if page = placesShown(t, visitor, slug, "50</strong> of 50"); !strings.Contains(page, "50</strong> of 50") {
			t.Errorf("race page after the cancellation: %.1500s", page)
		}
	})
}

var noLimits = auth.Limits{}

// placesShown is the race page once it shows want, polling it for 12 s
// at most (then the page as it is). The places left on it are cached for
// a few seconds (placesEvery) by the race service's own clock, which an
// HTTP test cannot move (only the App's Now is settable): the page is the
// state waited for.
func placesShown(t *testing.T, p *person, slug, want string) string {
	t.Helper()
	for deadline := time.Now().Add(12 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		_, page := p.Get("/race/r/" + slug)
		if strings.Contains(page, want) || time.Now().After(deadline) {
			return page
		}
	}
}

// written waits for the writer's news (up to 20 s) that the hold of entry
// (its wizard path) is a registration: from then on its waiting page sends
// the runner on to the confirmation.
func written(t *testing.T, m *app.Main, entry string) {
	t.Helper()
	id := entry[strings.LastIndex(entry, "/")+1:]
	reg, err := apptest.AppOf[*race.App](t, m).Service().Written(context.Background(), id, 20*time.Second)
	if err != nil || reg == nil {
		t.Fatalf("hold %s not written in 20 s (%v)", id, err)
	}
}

// A wizard's form that the proxy sends again (the same X-Request-Id from a
// trusted proxy), because the instance that saved it died before
// answering, sends the runner on to the page their hold is at now, as the
// first answer would have: not an error page.
func TestWizardFormSentAgainByTheProxy(t *testing.T) {
	m := apptest.StartWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" })
	d := signedIn(t, m, "dora")
	slug := publishRace(t, d, "10")
	runner := signedIn(t, m, "rita")
	ev := regexp.MustCompile(`name="event" value="(\d+)"`).FindStringSubmatch(func() string {
		_, body := runner.Get("/race/r/" + slug)
		return body
	}())
	if ev == nil {
		t.Fatal("no event on the race page")
	}
	path, _ := runner.to(runner.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
	entry := strings.TrimSuffix(path, "/details")
	form := url.Values{"first_name": {"Rita"}, "last_name": {"Runner"}, "email": {"rita@example.com"},
		"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}
	send := func() (*http.Response, string) {
		return runner.Do("POST", entry+"/details", strings.NewReader(form.Encode()), http.Header{
			"Content-Type":    {"application/x-www-form-urlencoded"},
			"X-Forwarded-For": {"198.51.100.7"},
			"X-Request-Id":    {"nginx-details-1"},
		})
	}
	res, body := send()
	first := apptest.WantRedirect(t, res, body)
	if first != entry+"/waiver" {
		t.Fatalf("details saved: to %s; want %s/waiver", first, entry)
	}
	res, body = send()
	if got := apptest.WantRedirect(t, res, body); got != first {
		t.Errorf("the same form sent again: to %s; want %s, where the hold is", got, first)
	}
}

// A director adds a co-director by username, who then reaches the race's
// admin pages and exports; a runner may not add themselves, and an unknown
// name is refused with a message.
func TestCoDirectors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dora := signedIn(t, m, "dora")
		slug := publishRace(t, dora, "10")
		carl := signedIn(t, m, "carl")
		mallory := signedIn(t, m, "mallory")
		admin := "/race/r/" + slug + "/admin"
		res, body := carl.Get(admin)
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = mallory.Post(admin+"/directors", url.Values{"username": {"mallory"}})
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = dora.Post(admin+"/directors", url.Values{"username": {"nobody-here"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		path, body := dora.to(dora.Post(admin+"/directors", url.Values{"username": {"carl"}}))
		if path != admin || !strings.Contains(body, "carl") {
			t.Errorf("after adding carl: %s %.1500s", path, body)
		}
		res, body = carl.Get(admin)
		apptest.WantStatus(t, res, body, http.StatusOK)
		ev := regexp.MustCompile(`/admin/events/(\d+)/entrants`).FindStringSubmatch(body)
		if ev == nil {
			t.Fatalf("no event on carl's admin page: %.1500s", body)
		}
		res, body = carl.Get(admin + "/events/" + ev[1] + "/entrants.csv")
		apptest.WantStatus(t, res, body, http.StatusOK)
		res, body = mallory.Get(admin + "/events/" + ev[1] + "/entrants.csv")
		apptest.WantStatus(t, res, body, http.StatusForbidden)
	})
}
