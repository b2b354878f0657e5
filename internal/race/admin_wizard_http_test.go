package race_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// A price typed with a decimal comma ("12,50") is read as 12.50, for an
// event and for a store item; thousands separators are read too.
func TestPriceWithDecimalComma(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		admin := "/race/r/" + slug + "/admin"
		_, body := dir.to(dir.Post(admin+"/events", eventForm(t, "10K", "12,50", "40")))
		if !strings.Contains(body, `value="12.50"`) {
			t.Errorf("the event priced 12,50: %.3000s", body)
		}
		_, body = dir.to(dir.Post(admin+"/items", url.Values{"name": {"Shirt"}, "price": {"1.234,5"}, "stock": {"3"}}))
		if v, _ := inputValue(body, "new-price"); v != "0" || !strings.Contains(body, `value="1234.50"`) {
			t.Errorf("the item priced 1.234,5: %.3000s", body)
		}
		_, body = dir.Get(admin)
		if !strings.Contains(body, "12.50 USD") || !strings.Contains(body, "Shirt, 1234.50 USD") {
			t.Errorf("the review lacks the prices: %.4000s", body)
		}
	})
}

// A start time (or an opening, closing or draw time) that the race's clock
// skips that day is told, as meet tells it, and nothing is stored; a time
// that occurs is taken.
func TestSkippedStartTimeIsTold(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		res, body := dir.Post("/race/races", url.Values{"name": {"Spring Forward 10K"}, "location": {"Queens"},
			"date": {"2027-03-14"}, "tz": {"America/New_York"}, "currency": {"usd"}})
		path := apptest.WantRedirect(t, res, body)
		f := url.Values{"name": {"10K"}, "start_time": {"02:30"}, "opens_date": {time.Now().Format(time.DateOnly)}, "opens_time": {"00:00"},
			"closes_date": {"2027-03-13"}, "closes_time": {"12:00"}, "price": {"10"}, "cap": {"100"}}
		res, body = dir.Post(path, f)
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		want := "On Sun 14 Mar 2027 the clocks in America/New_York go forward from 02:00 to 03:00: 02:30 does not exist that day."
		if !strings.Contains(body, want) {
			t.Errorf("a skipped start: %.3000s", body)
		}
		if v, _ := inputValue(body, "new-start"); v != "02:30" {
			t.Errorf("the start typed: got %q; want 02:30", v)
		}
		f.Set("start_time", "03:30")
		_, body = dir.to(dir.Post(path, f))
		if !strings.Contains(body, `value="03:30"`) {
			t.Errorf("a start that occurs: %.3000s", body)
		}
	})
}

// The review step shows everything the race page will publish: the
// description, the extras and store items, the text and the waiver.
func TestReviewShowsEverything(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "50")
		admin := "/race/r/" + slug + "/admin"
		dir.to(dir.Post(admin+"/basics", url.Values{"name": {"Harbour Run"}, "location": {"Old Harbour"},
			"date": {time.Now().AddDate(0, 2, 0).Format(time.DateOnly)}, "tz": {"America/New_York"}, "currency": {"usd"},
			"description": {"Flat and fast along the quay."}}))
		dir.to(dir.Post(admin+"/extras", url.Values{"teams": {"on"}, "fundraiser": {"Harbour Trust"}}))
		dir.to(dir.Post(admin+"/items", url.Values{"name": {"Pasta dinner"}, "price": {"8"}, "stock": {"60"}}))
		res, body := dir.Get(admin)
		apptest.WantStatus(t, res, body, http.StatusOK)
		for _, want := range []string{"Flat and fast along the quay.", "Runners may run in teams.", "Donations to Harbour Trust.",
			"Store: Pasta dinner, 8.00 USD, 60 in stock", "Bag drop at the pier.", "I run at my own risk.", "Logo"} {
			if !strings.Contains(body, want) {
				t.Errorf("the review lacks %q: %.5000s", want, body)
			}
		}
	})
}

// In a browser, a new race's time zone is the browser's (as meet's new
// poll's is); a zone picked after a refused form stays as picked.
func TestBrowserRaceZoneDefault(t *testing.T) {
	tokyo := apptest.BrowserInZone(t, "Asia/Tokyo", 1200, 900)
	m := apptest.One(t)
	m.Auth.SetLimits(noLimits)
	base := m.URL()
	if err := chromedp.Do(tokyo,
		apptest.SignUp(base, "dora", "dora@example.com", "password-dora"),
		chromedp.Navigate(base+"/race/new"),
		chromedp.WaitVisible(`#name`),
	); err != nil {
		t.Fatal(err)
	}
	zone := func() string {
		t.Helper()
		ctx, cancel := context.WithTimeout(tokyo, 10*time.Second)
		defer cancel()
		// forms.js runs after the page: wait for it to settle the picker.
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#tz").value !== "UTC" || !document.querySelector("#tz[data-detect-zone]")`)); err != nil {
			t.Fatalf("zone picker: %v", err)
		}
		z, err := chromedp.Run(tokyo, chromedp.Value(`#tz`))
		if err != nil {
			t.Fatal(err)
		}
		return z
	}
	if z := zone(); z != "Asia/Tokyo" {
		t.Errorf("new race's zone: %q; want the browser's Asia/Tokyo", z)
	}
	apptest.Screenshot(t, tokyo, "race-new-zone")
	// Refused (no name): the page comes back with the zone chosen, UTC.
	if _, err := chromedp.Run(tokyo, chromedp.Evaluate[bool](`document.querySelector("#name").removeAttribute("required"), true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(tokyo,
		chromedp.SetValue(`#tz`, "UTC"),
		chromedp.SendKeys(`#location`, "Shibuya"),
		chromedp.SetValue(`#date`, time.Now().AddDate(0, 2, 0).Format(time.DateOnly)),
		chromedp.Click(`form[action="/race/races"] button[type=submit]`),
		chromedp.WaitVisible(`#name-error`),
	); err != nil {
		t.Fatal(err)
	}
	if z := zone(); z != "UTC" {
		t.Errorf("zone after a refused form: %q; want UTC as chosen", z)
	}
}
