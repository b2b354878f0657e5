package meet_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/meet"
)

// box is an element's bounding box in CSS pixels.
type box struct{ Top, Left, Width, Height float64 }

// TestBrowserLayout looks at the demo poll as a desktop and a phone see it:
// on a 1280x900 desktop the heat map starts within the first screen and is
// wide; there is no empty box under it before a cell is hovered; the public
// page explains the colours; the poll form's daily hours are two controls of
// the same kind, on a 24-hour clock up to 24:00; and no page asks for a
// missing favicon (or anything else that 404s).
func TestBrowserLayout(t *testing.T) {
	m := apptest.One(t)
	pub, admin, err := apptest.AppOf[*meet.App](t, m).Demo(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	base := m.URL()
	for _, size := range []struct {
		name          string
		width, height int
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			ctx := apptest.Browser(t, size.width, size.height)
			var mu sync.Mutex
			var missing []string
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(chromedp.Do(ctx)) // open the tab, so that Listen sees every request
			must(chromedp.Listen(ctx, func(ev any) {
				if r, ok := ev.(*network.EventResponseReceived); ok && r.Response.Status >= 400 {
					mu.Lock()
					missing = append(missing, r.Response.URL)
					mu.Unlock()
				}
			}))
			must(chromedp.Do(ctx, chromedp.Navigate(base+pub), chromedp.WaitVisible(`table.heat`)))
			heat, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(() => { const b = document.querySelector("table.heat").getBoundingClientRect(); return {top: b.top, left: b.left, width: b.width, height: b.height}; })()`))
			must(err)
			main, err := chromedp.Run(ctx, chromedp.Evaluate[box](`(() => { const b = document.querySelector("main").getBoundingClientRect(); return {top: b.top, left: b.left, width: b.width, height: b.height}; })()`))
			must(err)
			t.Logf("heat map %+v, main %+v", heat, main)
			apptest.Screenshot(t, ctx, "meet-layout-poll-"+size.name)
			if size.name == "desktop" {
				if heat.Top >= float64(size.height)-100 {
					t.Errorf("heat map starts at y=%.0f; want within the first screen (%d px high)", heat.Top, size.height)
				}
				if heat.Width < 0.55*main.Width {
					t.Errorf("heat map is %.0f px wide in a %.0f px page; want at least 55 %%", heat.Width, main.Width)
				}
			}
			// Before any cell is hovered, the "who is free" panel is not an
			// empty box: it is hidden or says what to do.
			who, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
				const w = document.querySelector("#who");
				const b = w.getBoundingClientRect();
				return b.height === 0 || getComputedStyle(w).display === "none" ? "hidden" : w.textContent.trim();
			})()`))
			must(err)
			if who == "" {
				t.Errorf("the who-is-free panel is an empty box before hovering")
			}
			legend, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector(".legend") || {textContent: ""}).textContent`))
			must(err)
			for _, w := range []string{"preferred", "fine", "if need be"} {
				if !strings.Contains(legend, w) {
					t.Errorf("legend %q lacks %q", legend, w)
				}
			}

			must(chromedp.Do(ctx, chromedp.Navigate(base+"/meet/polls/new"), chromedp.WaitVisible(`#title`)))
			apptest.Screenshot(t, ctx, "meet-layout-form-"+size.name)
			kinds, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`["day_start", "day_end"].map((id) => { const e = document.getElementById(id); return e.tagName + ":" + (e.type || ""); })`))
			must(err)
			if kinds[0] != kinds[1] {
				t.Errorf("daily hours are %s and %s; want the same kind of control", kinds[0], kinds[1])
			}
			ends, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#day_end option")].map((o) => o.value)`))
			must(err)
			if len(ends) == 0 || ends[len(ends)-1] != "24:00" {
				t.Errorf("the daily end offers %v; want quarter hours up to 24:00", ends)
			}
			starts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#day_start option")].map((o) => o.value)`))
			must(err)
			if len(starts) != 96 || starts[0] != "00:00" || starts[95] != "23:45" {
				t.Errorf("the daily start offers %d quarter hours; want 00:00 to 23:45", len(starts))
			}

			must(chromedp.Do(ctx, chromedp.Navigate(base+admin), chromedp.WaitVisible(`#close-form`)))
			apptest.Screenshot(t, ctx, "meet-layout-admin-"+size.name)
			icon, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector("link[rel=icon]") || {href: ""}).href`))
			must(err)
			if icon == "" {
				t.Errorf("no <link rel=icon> in the layout")
			}
			// Clients that ask for /favicon.ico anyway are sent to the icon.
			ico, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch("/favicon.ico").then((r) => r.status + " " + r.headers.get("Content-Type"))`,
				chromedp.EvalAwaitPromise))
			must(err)
			if ico != "200 image/svg+xml" {
				t.Errorf("GET /favicon.ico = %q; want 200 image/svg+xml", ico)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(missing) > 0 {
				t.Errorf("requests that failed: %v", missing)
			}
		})
	}
}
