package meet_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserRangeLabelsOnShortDay: a poll kept in UTC, seen from a browser
// in Berlin at desktop and phone width, shows Ada's range over Berlin's
// 23-hour day with both dates, and its starts likewise (issue item 14).
func TestBrowserRangeLabelsOnShortDay(t *testing.T) {
	m := apptest.One(t)
	s := newSite(t, m)
	pub, _, _ := shortDayPoll(s, "UTC")
	for _, width := range []int{1200, 390} {
		ctx := apptest.BrowserInZone(t, "Europe/Berlin", width, 900)
		if err := chromedp.Do(ctx, chromedp.Navigate(m.URL()+pub)); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](
			`(() => { const p = document.querySelector("[data-zone]"); return !!p && p.dataset.zone === "Europe/Berlin"; })()`,
			chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("%d px: the page never showed in Europe/Berlin: %v", width, err)
		}
		rng, err := chromedp.Run(ctx, chromedp.Text(`.best-list li.first strong`))
		if err != nil {
			t.Fatal(err)
		}
		starts, err := chromedp.Run(ctx, chromedp.Text(`.best-list li.first .starts`))
		if err != nil {
			t.Fatal(err)
		}
		if want := "Sat 27 Mar, 23:00 – Mon 29 Mar, 00:00"; strings.TrimSpace(rng) != want {
			t.Errorf("%d px: best range %q; want %q", width, rng, want)
		}
		if want := "1 h, starting any time Sat 27 Mar, 23:00 – Sun 28 Mar, 23:00"; strings.TrimSpace(starts) != want {
			t.Errorf("%d px: starts %q; want %q", width, starts, want)
		}
		// The label fits the card: it does not stick out at phone width.
		over, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const li = document.querySelector(".best-list li.first"); return [...li.children].some(c => c.getBoundingClientRect().right > li.getBoundingClientRect().right + 1); })()`))
		if err != nil {
			t.Fatal(err)
		}
		if over {
			t.Errorf("%d px: a label sticks out of its card", width)
		}
		apptest.Screenshot(t, ctx, "meet-short-day-range-"+map[int]string{1200: "1200", 390: "390"}[width])
	}
}
