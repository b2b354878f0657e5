package race_test

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// A runner in New York reads a Berlin race's page: its opening shows on
// Berlin's clock (the server's text, which needs no script) and on hers,
// with a countdown to it; the closing too. In Berlin's zone the page adds
// nothing.
func TestBrowserRaceTimesInTheVisitorsZone(t *testing.T) {
	ny := apptest.BrowserInZone(t, "America/New_York", 390, 844)
	berlin := apptest.BrowserInZone(t, "Europe/Berlin", 1200, 900)
	m := apptest.One(t)
	dora := signedIn(t, m, "dora")
	berlinZone, nyZone := mustZone(t, "Europe/Berlin"), mustZone(t, "America/New_York")
	day := time.Now().In(berlinZone).AddDate(0, 0, 2)
	res, body := dora.Post("/race/races", url.Values{"name": {"Spree Run"}, "location": {"Treptow"},
		"date": {day.AddDate(0, 1, 0).Format(time.DateOnly)}, "tz": {"Europe/Berlin"}, "currency": {"eur"}})
	path := apptest.WantRedirect(t, res, body)
	slug := strings.TrimSuffix(strings.TrimPrefix(path, "/race/r/"), "/admin/events")
	admin := "/race/r/" + slug + "/admin"
	dora.to(dora.Post(admin+"/events", url.Values{"name": {"10K"}, "start_time": {"10:00"},
		"opens_date": {day.Format(time.DateOnly)}, "opens_time": {"09:00"},
		"closes_date": {day.AddDate(0, 0, 7).Format(time.DateOnly)}, "closes_time": {"18:00"}, "price": {"20"}, "cap": {"100"}}))
	dora.to(dora.Post(admin+"/text", url.Values{"waiver": {"I run at my own risk."}}))
	dora.to(dora.Post(admin+"/publish", nil))

	opens := time.Date(day.Year(), day.Month(), day.Day(), 9, 0, 0, 0, berlinZone)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(chromedp.Do(ny, chromedp.Navigate(m.URL()+"/race/r/"+slug), chromedp.WaitVisible(`.countdown`)))
	card, err := chromedp.Run(ny, chromedp.Text(`.event.card`))
	must(err)
	want := "Opens " + opens.Format("Mon 2 Jan 2006, 15:04") + " (" + opens.In(nyZone).Format("Mon 2 Jan, 15:04") + " your time)"
	if !strings.Contains(card, want) || !strings.Contains(card, "Opens in 1 day") && !strings.Contains(card, "Opens in 2 days") {
		t.Errorf("the event in New York reads %q; want %q and a countdown", card, want)
	}
	before, _ := chromedp.Run(ny, chromedp.Text(`.countdown`))
	// The countdown moves on by itself.
	if _, err := chromedp.Run(ny, chromedp.Poll[bool](`document.querySelector(".countdown").textContent !== `+"`"+before+"`",
		chromedp.WithPollingTimeout(5*time.Second))); err != nil {
		t.Errorf("the countdown stands still at %q: %v", before, err)
	}
	apptest.Screenshot(t, ny, "race-page-new-york-phone")

	must(chromedp.Do(berlin, chromedp.Navigate(m.URL()+"/race/r/"+slug), chromedp.WaitVisible(`.countdown`)))
	card, err = chromedp.Run(berlin, chromedp.Text(`.event.card`))
	must(err)
	if strings.Contains(card, "your time") || !strings.Contains(card, "Opens "+opens.Format("Mon 2 Jan 2006, 15:04")) {
		t.Errorf("the event in Berlin reads %q; want Berlin's clock alone", card)
	}
	apptest.Screenshot(t, berlin, "race-page-berlin-desktop")
}
