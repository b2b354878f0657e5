package meet_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserZones runs two browsers, one in Berlin and one in New York, on
// the same poll: each sees the poll in its own zone, says so, defaults a new
// poll to it, and shows the other's comment at its own clock time.
func TestBrowserZones(t *testing.T) {
	berlin := apptest.BrowserInZone(t, "Europe/Berlin", 1280, 900)
	ny := apptest.BrowserInZone(t, "America/New_York", 1280, 900)
	m := apptest.One(t)
	base := m.URL()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	text := func(ctx context.Context, sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(sel))
		must(err)
		return strings.TrimSpace(s)
	}
	eval := func(ctx context.Context, js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		must(err)
		return s
	}
	// waitZone waits until the page is shown in zone (the script sets the
	// cookie and reloads once on a first visit).
	waitZone := func(ctx context.Context, zone string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { const p = document.querySelector("[data-zone]"); return !!p && p.dataset.zone === `+"`"+zone+"`"+` && !!document.querySelector("#tz-detected") && document.querySelector("#tz-detected").textContent !== ""; })()`,
			chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("page never shown in %s: data-zone %q, cookie %q (%v)", zone,
				eval(ctx, `(document.querySelector("[data-zone]") || {dataset: {}}).dataset.zone || ""`), eval(ctx, `document.cookie`), err)
		}
	}
	newPollZone := func(ctx context.Context) string {
		t.Helper()
		must(chromedp.Do(ctx, chromedp.Navigate(base+"/meet/polls/new"), chromedp.WaitVisible(`#tz-field`)))
		return eval(ctx, `document.querySelector("#tz-field").value`)
	}

	// Berlin: the new-poll form picks the browser's zone, first from the
	// script, then (the cookie set) from the server.
	for i := range 2 {
		if got := newPollZone(berlin); got != "Europe/Berlin" {
			t.Fatalf("Berlin browser, visit %d: new poll zone %q; want Europe/Berlin (cookie %q)", i+1, got, eval(berlin, `document.cookie`))
		}
	}
	day := time.Now().AddDate(0, 0, 20)
	must(chromedp.Do(berlin,
		chromedp.SendKeys(`#title`, "Two zones"),
		chromedp.SetValue(`#start_date`, day.Format(time.DateOnly)),
		chromedp.SetValue(`#end_date`, day.AddDate(0, 0, 1).Format(time.DateOnly)),
		chromedp.SetValue(`#day_start`, "09:00"),
		chromedp.SetValue(`#day_end`, "12:00"),
		chromedp.Submit(`#title`),
		chromedp.WaitVisible(`#public-link`),
	))
	pub, err := chromedp.Run(berlin, chromedp.AttributeValue(`#public-link`, "href"))
	must(err)
	first := time.Date(day.Year(), day.Month(), day.Day(), 9, 0, 0, 0, mustLoad(t, "Europe/Berlin"))

	firstRow := `document.querySelector("table.heat tbody tr th").textContent.trim()`
	must(chromedp.Do(berlin, chromedp.Navigate(base+pub.Value), chromedp.WaitVisible(`table.heat`)))
	waitZone(berlin, "Europe/Berlin")
	if got := text(berlin, `#tz-detected`); got != "Your browser's zone: Europe/Berlin" {
		t.Errorf("Berlin browser says %q", got)
	}
	if got := eval(berlin, firstRow); got != "09:00" {
		t.Errorf("Berlin browser: first row %q; want 09:00", got)
	}

	// New York: the same poll in New York time.
	must(chromedp.Do(ny, chromedp.Navigate(base+pub.Value), chromedp.WaitVisible(`table.heat`)))
	waitZone(ny, "America/New_York")
	if got := text(ny, `#tz-detected`); got != "Your browser's zone: America/New_York" {
		t.Errorf("New York browser says %q", got)
	}
	wantNY := first.In(mustLoad(t, "America/New_York")).Format("15:04")
	if got := eval(ny, firstRow); got != wantNY {
		t.Errorf("New York browser: first row %q; want %s (09:00 Berlin)", got, wantNY)
	}
	if got := text(ny, `.poll-head p.muted`); !strings.Contains(got, "= "+wantNY+"–") {
		t.Errorf("New York browser: header %q; want the window from %s New York time", got, wantNY)
	}
	if got := eval(ny, `document.querySelector("table.heat td.cell").getAttribute("aria-label")`); !strings.Contains(got, wantNY) {
		t.Errorf("New York browser: first cell %q; want %s in it", got, wantNY)
	}
	// New Yorker joins and comments; each browser shows the comment's time
	// in its own zone.
	must(chromedp.Do(ny,
		chromedp.SendKeys(`#name`, "Nora"),
		chromedp.Submit(`#name`),
		chromedp.WaitVisible(`#comment-form`),
		chromedp.SendKeys(`#body`, "Mornings are early here"),
		chromedp.Submit(`#body`),
		chromedp.WaitVisible(`ul.comments time`),
	))
	commentTime := func(ctx context.Context, zone string) {
		t.Helper()
		must(chromedp.Do(ctx, chromedp.Navigate(base+pub.Value), chromedp.WaitVisible(`ul.comments time`)))
		at, err := time.Parse(time.RFC3339, eval(ctx, `document.querySelector("ul.comments time").getAttribute("datetime")`))
		must(err)
		want := at.In(mustLoad(t, zone)).Format("2 Jan 15:04")
		if got := text(ctx, `ul.comments time`); got != want {
			t.Errorf("%s browser: comment time %q; want %q", zone, got, want)
		}
	}
	commentTime(ny, "America/New_York")
	commentTime(berlin, "Europe/Berlin")
	must(chromedp.Do(ny, chromedp.Navigate(base+pub.Value), chromedp.WaitVisible(`table.heat`)))
	apptest.Screenshot(t, ny, "meet-zone-new-york")
	must(chromedp.Do(berlin, chromedp.Navigate(base+pub.Value), chromedp.WaitVisible(`table.heat`)))
	apptest.Screenshot(t, berlin, "meet-zone-berlin")

	if got := newPollZone(ny); got != "America/New_York" {
		t.Errorf("New York browser: new poll zone %q; want America/New_York (cookie %q)", got, eval(ny, `document.cookie`))
	}

	// A repeated hour: the two passes read differently in Berlin.
	night := repeatedHourPoll(newSite(t, m))
	must(chromedp.Do(berlin, chromedp.Navigate(base+night), chromedp.WaitVisible(`table.heat`)))
	waitZone(berlin, "Europe/Berlin")
	if got := text(berlin, `.best-list`); !strings.Contains(got, "02:00 (UTC+2)–02:30 (UTC+2)") || !strings.Contains(got, "02:00 (UTC+1)–02:30 (UTC+1)") {
		t.Errorf("Berlin best times over the repeated hour: %q; want both passes told apart", got)
	}
	apptest.Screenshot(t, berlin, "meet-zone-repeated-hour")

	phone := apptest.BrowserInZone(t, "America/New_York", 390, 844)
	must(chromedp.Do(phone, chromedp.Navigate(base+pub.Value), chromedp.WaitVisible(`table.heat`)))
	waitZone(phone, "America/New_York")
	if got := eval(phone, firstRow); got != wantNY {
		t.Errorf("New York phone: first row %q; want %s", got, wantNY)
	}
	apptest.Screenshot(t, phone, "meet-zone-new-york-phone")
}

func mustLoad(t *testing.T, zone string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
