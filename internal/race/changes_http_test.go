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

// wantIn fails unless page has each of want.
func wantIn(t *testing.T, what, page string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("%s lacks %q: %.3000s", what, w, page)
		}
	}
}

// changesRace is a published race of dir's (one 5K at 25.50 USD, New
// York's clock) with T-shirts and teams, ann registered for it before
// they were on; it returns the slug, the event's id and ann's entry.
func changesRace(t *testing.T, dir, ann *person) (slug, ev, entry string) {
	t.Helper()
	slug = publishRace(t, dir, "5")
	_, page := ann.Get("/race/r/" + slug)
	ev = eventID.FindStringSubmatch(page)[1]
	entry = register(t, ann, slug, ev, "Ann")
	postOK(t, dir, "/race/r/"+slug+"/admin/extras", url.Values{"teams": {"on"}, "shirts": {"on"}})
	return slug, ev, entry
}

// editLink is the first "Edit" link of event ev's registrants list (the
// page's path, the registration's id).
func editLink(t *testing.T, dir *person, admin, ev string) []string {
	t.Helper()
	_, list := dir.Get(admin + "/events/" + ev + "/entrants")
	edit := regexp.MustCompile(`href="(` + admin + `/registrations/(\d+)/edit)"`).FindStringSubmatch(list)
	if edit == nil {
		t.Fatalf("no edit link on the registrants list: %.2000s", list)
	}
	return edit
}

// nyDay is the date days from today on New York's clock.
func nyDay(t *testing.T, days int) string {
	return time.Now().In(mustZone(t, "America/New_York")).AddDate(0, 0, days).Format(time.DateOnly)
}

// The director sets the rule on the basics page (a refused one comes back
// with what was typed, the message beside its field); the runner changes
// her details from her registrations page (refused input kept, 422), then
// cancels: the page asks first saying what she gets back under the rule,
// the POST cancels, her page says so, the place is free, and she is mailed
// the refund. Another runner finds none of it (404).
func TestRunnerChangesAndCancels(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir, ann := signedIn(t, m, "dora"), signedIn(t, m, "ann")
		slug, _, entry := changesRace(t, dir, ann)
		admin := "/race/r/" + slug + "/admin"
		_, basics := dir.Get(admin + "/basics")
		wantIn(t, "the basics page", basics, `action="`+admin+`/policy#policy"`, "Changes and cancellations", `value="none" checked`)
		res, body := dir.Post(admin+"/policy", url.Values{"refund": {"partial"}, "percent": {"150"}, "edit_date": {nyDay(t, 10)}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		wantIn(t, "the refused rule", body, "whole percentage from 1 to 99", `value="150"`, "Give a date and a time", `href="#percent"`,
			`value="`+nyDay(t, 10)+`"`)
		postOK(t, dir, admin+"/policy", url.Values{"refund": {"partial"}, "percent": {"50"}, "edit_date": {nyDay(t, 10)}, "edit_time": {"18:00"}})
		_, review := dir.Get(admin)
		wantIn(t, "the review", review, "gets 50 % of what they paid back until their event starts")
		_, racePage := ann.Get("/race/r/" + slug) // cached before the rule: shown at once
		wantIn(t, "the race page", racePage, "gets 50 % of what they paid back until their event starts", "Choose your T-shirt size.")

		// Her page and her registration's offer the change and the cancellation.
		_, mine := ann.Get("/race/mine")
		wantIn(t, "ann's registrations", mine, `href="`+entry+`/change"`, `href="`+entry+`/cancel"`)
		_, done := ann.Get(entry + "/done")
		wantIn(t, "ann's registration", done, "You can correct your name, T-shirt size and team until", "18:00",
			"you get 12.75 USD (50 % of 25.50 USD) back until", `href="`+entry+`/change"`)

		res, body = ann.Get(entry + "/change")
		apptest.WantStatus(t, res, body, http.StatusOK)
		wantIn(t, "the change page", body, `value="Ann"`, `name="shirt"`, `name="team"`, "Save the changes")
		res, body = ann.Post(entry+"/change", url.Values{"first_name": {""}, "last_name": {"Lee"}, "shirt": {""}, "team": {"Pier Pacers"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		wantIn(t, "the refused change", body, "Pick your T-shirt size.", `value="Lee"`, `value="Pier Pacers"`, `href="#first_name"`)
		path, body := ann.to(ann.Post(entry+"/change", url.Values{"first_name": {"Anna"}, "last_name": {"Lee"}, "shirt": {"M"}, "team": {"Pier Pacers"}}))
		if path != entry+"/done" {
			t.Errorf("after the change: %s", path)
		}
		wantIn(t, "the registration after the change", body, "Your details are changed.", "Anna Lee", "<dt>T-shirt size</dt><dd>M</dd>", "Pier Pacers")

		// Another runner: not found, looking or sending.
		bea := signedIn(t, m, "bea")
		for _, p := range []string{entry + "/change", entry + "/cancel"} {
			res, body = bea.Get(p)
			apptest.WantStatus(t, res, body, http.StatusNotFound)
			res, body = bea.Post(p, url.Values{"first_name": {"Bea"}, "last_name": {"X"}, "shirt": {"S"}})
			apptest.WantStatus(t, res, body, http.StatusNotFound)
		}

		res, body = ann.Get(entry + "/cancel")
		apptest.WantStatus(t, res, body, http.StatusOK)
		wantIn(t, "the cancellation page", body, "You will get <strong>12.75 USD (50 % of 25.50 USD)</strong> back", "cannot be undone",
			`method="post"`, `action="`+entry+`/cancel?refund=1275"`, "Cancel and get 12.75 USD back")
		// Looking cancelled nothing.
		if _, mine := ann.Get("/race/mine"); !strings.Contains(mine, "confirmed") {
			t.Errorf("ann's registration after she only looked: %.2000s", mine)
		}
		path, body = ann.to(ann.Post(entry+"/cancel?refund=1275", nil))
		if path != entry+"/done" {
			t.Errorf("after cancelling: %s", path)
		}
		wantIn(t, "the registration after cancelling", body, "Registration cancelled", "your place was released. 12.75 USD (50 % of 25.50 USD) is refunded")
		if strings.Contains(body, "Cancel my registration") {
			t.Errorf("a cancelled registration still offers its cancellation")
		}
		mail := awaitMail(t, m, "ann@example.com", "Registration cancelled")
		wantIn(t, "the cancellation mail", mail.Text, "You cancelled your registration", "12.75 USD (50 % of 25.50 USD) is refunded")
		awaitMail(t, m, "ann@example.com", "Refund done")
		res, body = ann.Get(entry + "/cancel")
		apptest.WantStatus(t, res, body, http.StatusConflict)
		res, body = ann.Post(entry+"/cancel", nil)
		apptest.WantStatus(t, res, body, http.StatusConflict)
		wantIn(t, "cancelling twice", body, "cancelled already")
		res, body = ann.Post(entry+"/change", url.Values{"first_name": {"A"}, "last_name": {"B"}, "shirt": {"S"}})
		apptest.WantStatus(t, res, body, http.StatusConflict)
	})
}

// After the cutoff the change page says until when details could be
// changed, and a change is refused (409) with that; after the refund's
// date the cancellation says there is no refund, and refunds nothing.
func TestChangesAfterTheirDates(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir, ann := signedIn(t, m, "dora"), signedIn(t, m, "ann")
		slug, _, entry := changesRace(t, dir, ann)
		admin := "/race/r/" + slug + "/admin"
		yesterday := nyDay(t, -1)
		postOK(t, dir, admin+"/policy", url.Values{"refund": {"full"}, "edit_date": {yesterday}, "edit_time": {"09:00"},
			"until_date": {yesterday}, "until_time": {"10:00"}})
		res, body := ann.Get(entry + "/change")
		apptest.WantStatus(t, res, body, http.StatusOK)
		wantIn(t, "the change page after the cutoff", body, "could be changed until", "09:00", "that has passed", "<fieldset disabled class=\"stack change-fields\"")
		if strings.Contains(body, "Save the changes") {
			t.Errorf("the change page offers to save after the cutoff")
		}
		res, body = ann.Post(entry+"/change", url.Values{"first_name": {"Anna"}, "last_name": {"Lee"}, "shirt": {"M"}})
		apptest.WantStatus(t, res, body, http.StatusConflict)
		wantIn(t, "a change after the cutoff", body, "could be changed until", "that has passed")
		if _, done := ann.Get(entry + "/done"); strings.Contains(done, "Anna") {
			t.Errorf("a change after the cutoff was saved")
		}
		res, body = ann.Get(entry + "/cancel")
		apptest.WantStatus(t, res, body, http.StatusOK)
		wantIn(t, "the cancellation page after the refund's date", body, "<strong>No refund</strong>", "refunded cancellations until",
			"10:00", "Cancel my registration, without refund", `/cancel?refund=0"`)
		postOK(t, ann, entry+"/cancel?refund=0", nil)
		mail := awaitMail(t, m, "ann@example.com", "Registration cancelled")
		wantIn(t, "the cancellation mail", mail.Text, "after that there is no refund, so nothing is refunded")
	})
}

// Closing an event asks first (a GET changes nothing); then its race
// page says "Registration closed" at once, and a hold, the waiting list
// and the lottery are refused (409) with the reason; reopened, runners
// register again. Only the race's directors may do either.
func TestCloseAndReopenRegistration(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir, ann := signedIn(t, m, "dora"), signedIn(t, m, "ann")
		slug := publishRace(t, dir, "5")
		admin := "/race/r/" + slug + "/admin"
		_, page := ann.Get("/race/r/" + slug) // cached now
		ev := eventID.FindStringSubmatch(page)[1]
		_, events := dir.Get(admin + "/events")
		wantIn(t, "the events page", events, `href="`+admin+`/events/`+ev+`/close"`, "Close registration…")
		res, body := dir.Get(admin + "/events/" + ev + "/close")
		apptest.WantStatus(t, res, body, http.StatusOK)
		wantIn(t, "the close page", body, "Close registration for 5K?", "Nobody new can hold a place", `method="post"`)
		if _, page := ann.Get("/race/r/" + slug); strings.Contains(page, "Registration closed") {
			t.Errorf("looking at the close page closed the event")
		}
		// Not a director: forbidden.
		for _, p := range []string{"/close", "/reopen"} {
			res, body = ann.Post(admin+"/events/"+ev+p, nil)
			apptest.WantStatus(t, res, body, http.StatusForbidden)
		}
		res, body = dir.Post(admin+"/events/999999/close", nil)
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		path, body := dir.to(dir.Post(admin+"/events/"+ev+"/close", nil))
		if path != admin+"/events" {
			t.Errorf("after closing: %s", path)
		}
		wantIn(t, "the events page after closing", body, "Registration closed", "Reopen registration")
		_, page = ann.Get("/race/r/" + slug)
		wantIn(t, "the race page after closing", page, "Registration closed")
		if strings.Contains(page, ">Register<") {
			t.Errorf("the race page still offers to register: %.2000s", page)
		}
		res, body = ann.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}})
		apptest.WantStatus(t, res, body, http.StatusConflict)
		wantIn(t, "a hold in a closed event", body, "Registration for this event has closed.")
		res, body = ann.Post("/race/r/"+slug+"/events/"+ev+"/waitlist", nil)
		apptest.WantStatus(t, res, body, http.StatusConflict)
		_, body = ann.Get("/race/r/" + slug + "/events/" + ev + "/sold-out")
		wantIn(t, "the waiting list's page of a closed event", body, "Registration for 5K is closed")
		if strings.Contains(body, "Join the waiting list") {
			t.Errorf("a closed event offers its waiting list")
		}
		postOK(t, dir, admin+"/events/"+ev+"/reopen", nil)
		if _, page = ann.Get("/race/r/" + slug); strings.Contains(page, "Registration closed") {
			t.Errorf("the race page after reopening: %.2000s", page)
		}
		res, body = ann.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}})
		if p := apptest.WantRedirect(t, res, body); !strings.HasSuffix(p, "/details") {
			t.Errorf("a hold after reopening: %s", p)
		}
	})
}

// A closed lottery takes no entries.
func TestClosedLotteryTakesNoEntries(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir, ann := signedIn(t, m, "dora"), signedIn(t, m, "ann")
		slug := publishRace(t, dir, "5")
		admin := "/race/r/" + slug + "/admin"
		_, page := ann.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		form := eventForm(t, "5K", "25.50", "5")
		draw := time.Now().In(mustZone(t, "America/New_York")).AddDate(0, 0, 7)
		form.Set("lottery", "on")
		form.Set("draw_date", draw.Format(time.DateOnly))
		form.Set("draw_time", "12:00")
		postOK(t, dir, admin+"/events/"+ev, form)
		_, body := ann.Get("/race/r/" + slug + "/events/" + ev + "/lottery")
		wantIn(t, "the open lottery", body, "Enter the lottery")
		postOK(t, dir, admin+"/events/"+ev+"/close", nil)
		res, body := ann.Post("/race/r/"+slug+"/events/"+ev+"/waitlist", nil)
		apptest.WantStatus(t, res, body, http.StatusConflict)
		wantIn(t, "entering a closed lottery", body, "closed")
		_, body = ann.Get("/race/r/" + slug + "/events/" + ev + "/lottery")
		if strings.Contains(body, "Enter the lottery") {
			t.Errorf("a closed lottery offers its entry: %.2000s", body)
		}
	})
}

// The director edits a registrant from the registrants list (refused
// input kept beside its field, 422); the runner is mailed what changed and
// sees it on her page. Others may not: a runner is forbidden, another
// race's director finds no such registration.
func TestDirectorEditsARegistrant(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir, ann := signedIn(t, m, "dora"), signedIn(t, m, "ann")
		slug, ev, _ := changesRace(t, dir, ann)
		admin := "/race/r/" + slug + "/admin"
		edit := editLink(t, dir, admin, ev)
		res, body := dir.Get(edit[1])
		apptest.WantStatus(t, res, body, http.StatusOK)
		wantIn(t, "the edit page", body, "Edit Ann Runner", `value="Ann"`, "Save and tell the runner")
		res, body = dir.Post(edit[1], url.Values{"first_name": {"Ann"}, "last_name": {strings.Repeat("x", 61)}, "shirt": {"L"}, "team": {"Dock Runners"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		wantIn(t, "the refused edit", body, `value="Dock Runners"`, `<option value="L" selected`, `href="#last_name"`)
		path, body := dir.to(dir.Post(edit[1], url.Values{"first_name": {"Ann"}, "last_name": {"Smith"}, "shirt": {"L"}, "team": {"Dock Runners"}}))
		if path != admin+"/events/"+ev+"/entrants" {
			t.Errorf("after the edit: %s", path)
		}
		wantIn(t, "the registrants after the edit", body, "Ann Smith", "The runner is told")
		mail := awaitMail(t, m, "ann@example.com", "Your details changed")
		wantIn(t, "the mail", mail.Text, "Your name is now Ann Smith (it was Ann Runner).", "Your T-shirt size is now L (it was none).",
			"Your team is now Dock Runners (it was none).", "/race/mine")
		_, mine := ann.Get("/race/mine")
		wantIn(t, "ann's page", mine, "Your details changed: Harbour Run · 5K", "Your name is now Ann Smith")
		// A runner: forbidden; another race's director: not found.
		for _, p := range []*person{ann} {
			res, body = p.Get(edit[1])
			apptest.WantStatus(t, res, body, http.StatusForbidden)
			res, body = p.Post(edit[1], url.Values{"first_name": {"X"}, "last_name": {"Y"}, "shirt": {"S"}})
			apptest.WantStatus(t, res, body, http.StatusForbidden)
		}
		olga := signedIn(t, m, "olga")
		res, body = olga.Post("/race/races", url.Values{"name": {"Other Run"}, "location": {"Hill"}, "date": {"2030-05-05"}, "tz": {"UTC"}, "currency": {"eur"}})
		other := strings.TrimSuffix(apptest.WantRedirect(t, res, body), "/events")
		res, body = olga.Get(other + "/registrations/" + edit[2] + "/edit")
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		res, body = olga.Post(other+"/registrations/"+edit[2]+"/edit", url.Values{"first_name": {"X"}, "last_name": {"Y"}})
		apptest.WantStatus(t, res, body, http.StatusNotFound)
	})
}

// A race that gives T-shirts asks for the size on the details page (none
// picked: refused beside the field, what was typed kept); the size shows
// on the review, the confirmation page and mail, and the export.
func TestShirtSizeInTheWizard(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir, ann := signedIn(t, m, "dora"), signedIn(t, m, "ann")
		slug := publishRace(t, dir, "5")
		admin := "/race/r/" + slug + "/admin"
		postOK(t, dir, admin+"/extras", url.Values{"shirts": {"on"}})
		_, extras := dir.Get(admin + "/extras")
		wantIn(t, "the extras page", extras, `name="shirts" value="on" checked`)
		_, review := dir.Get(admin)
		wantIn(t, "the review", review, "Runners choose a T-shirt size.")
		_, page := ann.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		path, body := ann.to(ann.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}}))
		entry := strings.TrimSuffix(path, "/details")
		wantIn(t, "the details page", body, `<select id="shirt" name="shirt" required>`)
		details := url.Values{"first_name": {"Ann"}, "last_name": {"Runner"}, "email": {"ann@example.com"},
			"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}
		res, body := ann.Post(entry+"/details", details)
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		wantIn(t, "the details without a size", body, "Pick your T-shirt size.", `value="Al, 555 0100"`)
		details.Set("shirt", "L")
		ann.to(ann.Post(entry+"/details", details))
		ann.to(ann.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
		_, body = ann.Get(entry + "/review")
		wantIn(t, "the review", body, "<dt>T-shirt size</dt><dd>L</dd>")
		res, body = ann.Post(entry+"/pay", url.Values{"card": {"4242424242424242"}})
		apptest.WantRedirect(t, res, body)
		mail := awaitMail(t, m, "ann@example.com", "You're registered")
		wantIn(t, "the confirmation", mail.Text, "T-shirt size: L\n")
		_, body = ann.Get(entry + "/done")
		wantIn(t, "the confirmation page", body, "<dt>T-shirt size</dt><dd>L</dd>")
		_, csv := dir.Get(admin + "/events/" + ev + "/entrants.csv")
		wantIn(t, "the export", csv, ",team,shirt,", ",Ann,Runner,", ",L,")
	})
}

// The mails of changes after registering (a director's edit, a runner's
// own cancellation) carry absolute links on the site's address that
// answer 200, as every mail's do (TestEveryMailHasAbsoluteWorkingLinks).
func TestChangesMailsHaveWorkingLinks(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir, ann := signedIn(t, m, "dora"), signedIn(t, m, "ann")
		slug, ev, entry := changesRace(t, dir, ann)
		edit := editLink(t, dir, "/race/r/"+slug+"/admin", ev)
		postOK(t, dir, edit[1], url.Values{"first_name": {"Ann"}, "last_name": {"Smith"}, "shirt": {"S"}})
		postOK(t, ann, entry+"/cancel?refund=0", nil)
		origin := strings.TrimRight(m.URL(), "/")
		for _, subject := range []string{"Your details changed", "Registration cancelled"} {
			msg := awaitMail(t, m, "ann@example.com", subject)
			if bare := barePath.FindAllString(msg.Text, -1); len(bare) > 0 {
				t.Errorf("bare paths %q in %q", bare, msg.Subject)
			}
			links := mailURL.FindAllString(msg.Text, -1)
			if len(links) == 0 {
				t.Errorf("no link in %q:\n%s", msg.Subject, msg.Text)
			}
			for _, l := range links {
				if l = strings.TrimRight(l, ".,;)"); !strings.HasPrefix(l, origin+"/") {
					t.Errorf("link %s in %q is not on %s", l, msg.Subject, origin)
				} else if status, body := follow(t, ann, l); status != http.StatusOK {
					t.Errorf("link %s in %q answers %d: %.300s", l, msg.Subject, status, body)
				}
			}
		}
	})
}
