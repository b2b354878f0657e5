package race_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserDirectorAndRunner: a director creates and publishes a race
// through the wizard on a desktop; a runner on a phone signs up on the way
// and registers page by page to the confirmation.
func TestBrowserDirectorAndRunner(t *testing.T) {
	dora := apptest.Browser(t, 1280, 900)
	rita := apptest.Browser(t, 390, 844) // a phone
	m := apptest.One(t)
	m.Auth.SetLimits(noLimits)
	base := m.URL()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_ = must
	directorCreates(t, dora, base, "dora", "Lakeside Half")
	apptest.Screenshot(t, dora, "race-director-events")
	// The logo, on the basics page.
	logoFile := filepath.Join(t.TempDir(), "lakeside.png")
	must(os.WriteFile(logoFile, picture(t, 320, 320), 0o600))
	must(chromedp.Do(dora,
		chromedp.Click(`nav.tabs a[href$="/admin/basics"]`),
		chromedp.WaitVisible(`#logo`),
		chromedp.SetUploadFiles(`#logo`, []string{logoFile}),
		chromedp.Click(`form[action$="/logo"] button[type=submit]`),
		chromedp.WaitVisible(`.flash`),
	))
	apptest.SettleMedia(t, m) // the logo is made by a job; the page shows it once reloaded
	must(chromedp.Do(dora,
		chromedp.Reload(),
		chromedp.WaitVisible(`.logo-admin img.race-logo`),
	))
	apptest.Screenshot(t, dora, "race-director-logo")
	must(chromedp.Do(dora, chromedp.Click(`nav.tabs a[href$="/admin/events"]`), chromedp.WaitVisible(`.event-admin`)))
	// Extras: teams, a fundraiser, and a shirt in the store.
	must(chromedp.Do(dora,
		chromedp.Click(`a.btn[href$="/admin/extras"]`),
		chromedp.WaitVisible(`#fundraiser`),
		chromedp.Click(`input[name=teams]`),
		chromedp.SendKeys(`#fundraiser`, "Lake Rescue"),
		chromedp.Click(`form[action$="/admin/extras"] button[type=submit]`),
		chromedp.WaitVisible(`.flash`),
		chromedp.SendKeys(`#new-name`, "Race shirt"),
		chromedp.SetValue(`#new-price`, "20"),
		chromedp.SetValue(`#new-stock`, "50"),
		chromedp.Click(`form[action$="/admin/items"] button[type=submit]`),
		chromedp.WaitVisible(`.item-admin`),
	))
	apptest.Screenshot(t, dora, "race-director-extras")
	directorPublishes(t, dora)
	apptest.Screenshot(t, dora, "race-director-published")
	must(chromedp.Do(dora,
		chromedp.Click(`a[href$="/admin/codes"]`),
		chromedp.WaitVisible(`#code`),
		chromedp.SendKeys(`#code`, "friend-10"),
		chromedp.SetValue(`#percent`, "10"),
		chromedp.SetValue(`#max_uses`, "50"),
		chromedp.Click(`form[action$="/admin/codes"] button[type=submit]`),
		chromedp.WaitVisible(`table.codes`),
	))
	apptest.Screenshot(t, dora, "race-director-codes")
	slug, err := chromedp.Run(dora, chromedp.Evaluate[string](`location.pathname.split("/")[3]`))
	must(err)

	must(chromedp.Do(rita,
		chromedp.Navigate(base+"/race/r/"+slug),
		chromedp.WaitVisible(`.event button`),
	))
	apptest.Screenshot(t, rita, "race-runner-race-page-phone")
	must(chromedp.Do(rita,
		chromedp.Click(`.event button`),
		chromedp.WaitVisible(`#username`),
		chromedp.SendKeys(`#username`, "rita"),
		chromedp.SendKeys(`#email`, "rita@example.com"),
		chromedp.SendKeys(`#new-password`, "password-rita"),
		chromedp.Submit(`#username`),
		chromedp.WaitVisible(`input[name=event]:checked`),
		chromedp.Click(`form[action$="/register"] button[type=submit]`),
		chromedp.WaitVisible(`#first_name`),
	))
	apptest.Screenshot(t, rita, "race-runner-details-phone")
	// A birth date that makes her four: the form again, her answers kept.
	must(chromedp.Do(rita,
		chromedp.SendKeys(`#first_name`, "Rita"),
		chromedp.SendKeys(`#last_name`, "Runner"),
		chromedp.SetValue(`#birth_date`, time.Now().AddDate(-4, 0, 0).Format(time.DateOnly)),
		chromedp.SetValue(`#gender`, "F"),
		chromedp.SendKeys(`#emergency`, "Al Runner, +49 30 555 0100"),
		chromedp.Click(`form[action$="/details"] button[type=submit]`),
		chromedp.WaitVisible(`#birth_date-error`),
	))
	kept, err := chromedp.Run(rita, chromedp.Evaluate[string](`document.querySelector("#first_name").value`))
	must(err)
	if kept != "Rita" {
		t.Errorf("first name after a refused form: %q; want it kept", kept)
	}
	apptest.Screenshot(t, rita, "race-runner-details-refused-phone")
	must(chromedp.Do(rita,
		chromedp.SetValue(`#birth_date`, "1990-06-15"),
		chromedp.Click(`form[action$="/details"] button[type=submit]`),
		chromedp.WaitVisible(`#team`),
		chromedp.SendKeys(`#team`, "Lakeside Striders"),
		chromedp.Click(`form[action$="/team"] button[type=submit]`),
		chromedp.WaitVisible(`input[name=amount][value="1000"]`),
		chromedp.Click(`input[name=amount][value="1000"]`),
	))
	apptest.Screenshot(t, rita, "race-runner-donation-phone")
	must(chromedp.Do(rita,
		chromedp.Click(`form[action$="/donation"] button[type=submit]`),
		chromedp.WaitVisible(`table.store`),
		chromedp.SetValue(`table.store input.qty`, "2"),
	))
	apptest.Screenshot(t, rita, "race-runner-store-phone")
	must(chromedp.Do(rita,
		chromedp.Click(`form[action$="/store"] button[type=submit]`),
		chromedp.WaitVisible(`input[name=accept]`),
		chromedp.Click(`input[name=accept]`),
		chromedp.Click(`form[action$="/waiver"] button[type=submit]`),
		chromedp.WaitVisible(`dl.review`),
	))
	review, err := chromedp.Run(rita, chromedp.Text(`dl.review`))
	must(err)
	for _, want := range []string{"Lakeside Striders", "10.00 EUR to Lake Rescue", "Race shirt", "2 × 20.00 EUR", "89.00 EUR"} {
		if !strings.Contains(review, want) {
			t.Errorf("review page lacks %q: %q", want, review)
		}
	}
	apptest.Screenshot(t, rita, "race-runner-review-phone")
	must(chromedp.Do(rita,
		chromedp.Click(`a[href$="/pay"]`),
		chromedp.WaitVisible(`#code`),
		chromedp.SendKeys(`#code`, "friend-10"),
		chromedp.Click(`form.code-form button[type=submit]`),
		chromedp.WaitVisible(`form.code-form button.link`),
	))
	amount, err := chromedp.Run(rita, chromedp.Text(`form.pay-form`))
	must(err)
	if !strings.Contains(amount, "85.10 EUR") { // 89.00 less 10 % of the 39.00 entry
		t.Errorf("payment page after the code: %q", amount)
	}
	apptest.Screenshot(t, rita, "race-runner-code-phone")
	must(chromedp.Do(rita,
		chromedp.WaitVisible(`#card`),
		chromedp.SendKeys(`#card`, "4000 0000 0000 0002"), // declined
		chromedp.Click(`form.pay-form button[type=submit]`),
		chromedp.WaitVisible(`#card-error`),
	))
	apptest.Screenshot(t, rita, "race-runner-declined-phone")
	must(chromedp.Do(rita,
		chromedp.SendKeys(`#card`, "4242 4242 4242 4242"),
		chromedp.Click(`form.pay-form button[type=submit]`),
		chromedp.WaitVisible(`.confirmation`),
	))
	got, err := chromedp.Run(rita, chromedp.Text(`.confirmation`))
	must(err)
	if !strings.Contains(got, "You're registered!") || !strings.Contains(got, "Bib 1") {
		t.Errorf("confirmation: %q", got)
	}
	apptest.Screenshot(t, rita, "race-runner-confirmation-phone")

	// Race day: the director, on her phone at the bib pickup, finds Rita
	// from the registrants page and marks her bib picked up.
	vol := apptest.Browser(t, 390, 844)
	must(chromedp.Do(vol,
		apptest.SignIn(base, "dora", "password-dora"),
		chromedp.Navigate(base+"/race/r/"+slug+"/admin/events"),
		chromedp.Click(`a[href$="/entrants"]`),
		chromedp.WaitVisible(`table.entrants`),
		chromedp.Click(`a[href$="/checkin"]`),
		chromedp.WaitVisible(`ul.checkin`),
		chromedp.SendKeys(`#q`, "runner"),
		chromedp.Submit(`#q`),
		// The list before the search has the same buttons: wait for the
		// search's own page (its forms carry the query; a screenshot taken
		// mid-navigation failed with "0 width").
		chromedp.WaitReady(`ul.checkin li form input[name="q"][value="runner"]`),
		chromedp.WaitVisible(`ul.checkin li form button`),
	))
	apptest.Screenshot(t, vol, "race-checkin-phone")
	must(chromedp.Do(vol,
		chromedp.Click(`ul.checkin li form button`),
		chromedp.WaitVisible(`ul.checkin li.done`),
	))
	got, err = chromedp.Run(vol, chromedp.Text(`main`))
	must(err)
	if !strings.Contains(got, "Bib 1 picked up.") || !strings.Contains(got, "1 of 1 bibs picked up") {
		t.Errorf("check-in list after the pickup: %q", got)
	}
	apptest.Screenshot(t, vol, "race-checkin-picked-up-phone")
}

// directorCreates signs up username in ctx's browser and creates a race
// named name through the wizard's first two steps: the basics, then an
// event open since an hour ago.
func directorCreates(t *testing.T, ctx context.Context, base, username, name string) {
	t.Helper()
	day := time.Now().AddDate(0, 3, 0).Format(time.DateOnly)
	opens := time.Now().In(mustZone(t, "Europe/Berlin")).Add(-time.Hour)
	for i, step := range []chromedp.Action[chromedp.Void]{
		apptest.SignUp(base, username, username+"@example.com", "password-"+username),
		chromedp.Navigate(base + "/race/"),
		chromedp.Click(`a[href="/race/new"]`),
		chromedp.WaitVisible(`#name`),
		chromedp.SendKeys(`#name`, name),
		chromedp.SendKeys(`#location`, "North Shore"),
		chromedp.SetValue(`#date`, day),
		chromedp.SetValue(`#tz`, "Europe/Berlin"),
		chromedp.SetValue(`#currency`, "eur"),
		chromedp.Click(`form[action="/race/races"] button[type=submit]`),
		chromedp.WaitVisible(`#new-name`),
		chromedp.SendKeys(`#new-name`, "Half marathon"),
		chromedp.SetValue(`#new-start`, "09:15"),
		chromedp.SetValue(`#new-opens`, opens.Format(time.DateOnly)),
		chromedp.SetValue(`input[name=opens_time]`, opens.Format("15:04")),
		chromedp.SetValue(`#new-price`, "39"),
		chromedp.SetValue(`#new-cap`, "800"),
		chromedp.Click(`form[action$="/admin/events"] button[type=submit]`),
		chromedp.WaitVisible(`.event-admin`),
	} {
		tctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := chromedp.Do(tctx, step)
		cancel()
		if err != nil {
			apptest.Screenshot(t, ctx, "race-director-failed")
			t.Fatalf("director step %d: %v", i, err)
		}
	}
}

// directorPublishes writes the race's text and waiver and publishes it
// from the review tab.
func directorPublishes(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx,
		chromedp.Click(`a[href$="/admin/text"]`),
		chromedp.WaitVisible(`#waiver`),
		chromedp.SendKeys(`#info`, "Start at the boat house."),
		chromedp.SendKeys(`#waiver`, "I take part at my own risk."),
		chromedp.Click(`form[action$="/admin/text"] button[type=submit]`),
		chromedp.WaitVisible(`.flash`),
		chromedp.Click(`nav.tabs a:last-child`),
		chromedp.WaitVisible(`form[action$="/publish"]`),
		chromedp.Click(`form[action$="/publish"] button`),
		chromedp.WaitVisible(`.flash.ok`),
	); err != nil {
		apptest.Screenshot(t, ctx, "race-director-publish-failed")
		t.Fatalf("text and publish: %v", err)
	}
}

// TestBrowserDirectorOnAPhone: a director creates and publishes a race
// through the wizard on a phone, and no page of it is wider than the
// screen.
func TestBrowserDirectorOnAPhone(t *testing.T) {
	pia := apptest.Browser(t, 390, 844)
	m := apptest.One(t)
	m.Auth.SetLimits(noLimits)
	fits := func(name string) {
		t.Helper()
		apptest.Screenshot(t, pia, name)
		wide, err := chromedp.Run(pia, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
		if err != nil || wide {
			t.Errorf("%s: wider than the phone's screen (%v)", name, err)
		}
	}
	directorCreates(t, pia, m.URL(), "pia", "Harbour Mile")
	fits("race-director-events-phone")
	directorPublishes(t, pia)
	fits("race-director-published-phone")
	slug, err := chromedp.Run(pia, chromedp.Evaluate[string](`location.pathname.split("/")[3]`))
	if err != nil {
		t.Fatal(err)
	}
	res, body := (&person{apptest.NewWeb(t, m), t}).Get("/race/r/" + slug)
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "Harbour Mile") || !strings.Contains(body, "Half marathon") {
		t.Errorf("the published race's page: %d %.1000s", res.StatusCode, body)
	}
}
