package meet_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserPaintAndHeatMap creates a poll in a real browser, adds two
// participants who paint their availability by dragging on the grid, and
// checks that the heat map and the best time follow.
func TestBrowserPaintAndHeatMap(t *testing.T) {
	ctx := apptest.Browser(t, 1280, 900)
	m := apptest.One(t)
	base := m.URL()

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
	end := time.Now().AddDate(0, 0, 12).Format("2006-01-02")
	must(chromedp.Do(ctx,
		chromedp.Navigate(base+"/meet/"),
		chromedp.Click(`a[href="/meet/polls/new"]`),
		chromedp.WaitVisible(`#title`),
		chromedp.SendKeys(`#title`, "Band rehearsal"),
		chromedp.SetValue(`#start_date`, start),
		chromedp.SetValue(`#end_date`, end),
		chromedp.SetValue(`#day_start`, "09:00"),
		chromedp.SetValue(`#day_end`, "13:00"),
		chromedp.Submit(`#title`),
		chromedp.WaitVisible(`#public-link`),
	))
	pub, err := chromedp.Run(ctx, chromedp.AttributeValue(`#public-link`, "href"))
	must(err)

	// Two people join and paint: Ada from row 0 to row 7 on day 0 and 1,
	// Grace from row 4 to row 11 on day 1: both are free rows 4-7 of day 1.
	paint := func(name string, fromRow, toRow, fromCol, toCol int) {
		t.Helper()
		must(chromedp.Do(ctx,
			chromedp.Navigate(base+pub.Value),
			chromedp.WaitVisible(`#name`),
			chromedp.SendKeys(`#name`, name),
			chromedp.Submit(`#name`),
			chromedp.WaitVisible(`table.grid.paint`),
		))
		xy := func(row, col int) (float64, float64) {
			r, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
				const td = document.querySelectorAll("table.grid.paint tbody tr")[%d].querySelectorAll("td")[%d];
				const b = td.getBoundingClientRect();
				return [b.left + b.width / 2, b.top + b.height / 2];
			})()`, row, col)))
			must(err)
			return r[0], r[1]
		}
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector("table.grid.paint").scrollIntoView({block: "center"}), true)`))
		must(err)
		x0, y0 := xy(fromRow, fromCol)
		x1, y1 := xy(toRow, toCol)
		held := func(p *input.DispatchMouseEventParams) {
			p.Button, p.Buttons, p.ClickCount = input.MouseButtonLeft, 1, 1
		}
		must(chromedp.Do(ctx,
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0, y0),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y0, held),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (x0+x1)/2, (y0+y1)/2, held),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x1, y1, held),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y1, held),
		))
		_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#save-state").textContent === "Saved"`, chromedp.WithPollingTimeout(10*time.Second)))
		if err != nil {
			state, _ := chromedp.Run(ctx, chromedp.Text(`#save-state`))
			t.Fatalf("%s's painting was not saved: %q (%v)", name, state, err)
		}
	}
	bestNow := func() string {
		t.Helper()
		must(chromedp.Do(ctx, chromedp.Navigate(base+pub.Value), chromedp.WaitVisible(`table.heat`)))
		best, err := chromedp.Run(ctx, chromedp.Text(`.best-list li.first`))
		must(err)
		return best
	}
	paint("Ada", 0, 7, 1, 2)
	// Ada alone: her first painted range, 09:00-11:00 on the second day.
	if best := bestNow(); !strings.Contains(best, "09:00–11:00") || !strings.Contains(best, "1 of 1 free") {
		t.Errorf("best time after Ada = %q; want 09:00–11:00, 1 of 1 free", best)
	}
	paint("Grace", 4, 11, 2, 2)
	apptest.Screenshot(t, ctx, "meet-paint")
	// Grace also paints by keyboard: focus the first cell, move down, Space.
	must(chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`document.querySelector("#save-state").textContent = ""`),
		chromedp.Focus(`table.grid.paint td.cell`),
		chromedp.KeyEvent("\ue015"), // ArrowDown
		chromedp.KeyEvent(" "),
	))
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelectorAll("table.grid.paint td.p1").length === 9 && document.querySelector("#save-state").textContent === "Saved"`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Errorf("painting by keyboard did not add a ninth saved cell: %v", err)
	}

	best := bestNow()
	if !strings.Contains(best, "10:00–11:00") || !strings.Contains(best, "2 of 2 free") {
		t.Errorf("best time = %q; want 10:00–11:00 with 2 of 2 free", best)
	}
	full, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.heat td.h10").length`))
	must(err)
	if full != 4 {
		t.Errorf("%d cells where everyone is free; want 4", full)
	}
	// Hovering a cell lists who is free.
	who, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => {
		const td = document.querySelector("table.heat td.h10");
		td.dispatchEvent(new PointerEvent("pointerover", {bubbles: true}));
		return document.querySelector("#who").textContent;
	})()`))
	must(err)
	if !strings.Contains(who, "Ada (preferred)") || !strings.Contains(who, "Grace (preferred)") {
		t.Errorf("who is free = %q; want Ada and Grace", who)
	}
	apptest.Screenshot(t, ctx, "meet-heatmap")

	phone := apptest.Browser(t, 390, 844)
	must(chromedp.Do(phone, chromedp.Navigate(base+pub.Value), chromedp.WaitVisible(`table.heat`)))
	apptest.Screenshot(t, phone, "meet-heatmap-phone")
}

// TestBrowserPollUpdatesLive: two browsers look at a poll; answers posted
// meanwhile reach both without a reload: the best times, the heat map (and
// who is free in it), the participant count and list.
func TestBrowserPollUpdatesLive(t *testing.T) {
	desk := apptest.Browser(t, 1280, 900)
	phone := apptest.Browser(t, 390, 844)
	m := apptest.One(t)
	s := newSite(t, m)
	pub, admin := s.createPoll("Live rehearsal")
	// ?tz= keeps the page in the poll's zone (no reload for the detected one).
	page := m.URL() + pub + "?tz=Europe/Berlin"
	for _, ctx := range []context.Context{desk, phone} {
		if err := chromedp.Do(ctx,
			chromedp.Navigate(page),
			chromedp.WaitVisible(`table.heat`),
			// Gone if the page reloads.
			chromedp.Evaluate[chromedp.Void](`window.notReloaded = true`),
		); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, func() bool { return streams(t, m) == 2 })
	// What another script wrote for this browser stays (participations.js).
	if err := chromedp.Do(desk, chromedp.Evaluate[chromedp.Void](`(() => {
		const box = document.querySelector("#my-answers");
		box.textContent = "You answered as Me"; box.hidden = false;
	})()`)); err != nil {
		t.Fatal(err)
	}

	day := time.Now().AddDate(0, 0, 10).Format("2006-01-02")
	answer := func(name, start, end, tier string) {
		own := s.join(pub, name)
		s.mustRedirect(s.post(own+"/timeframes", url.Values{"date": {day}, "start": {start}, "end": {end}, "tier": {tier}, "tz": {"Europe/Berlin"}}))
	}
	answer("Ada", "10:00", "11:30", "1")
	answer("Grace", "10:30", "12:00", "2")

	for name, ctx := range map[string]context.Context{"desktop": desk, "phone": phone} {
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => {
			const best = document.querySelector(".best-list li.first");
			return !!best && best.textContent.includes("2 of 2 free") && document.querySelectorAll("#participants li").length === 2;
		})()`, chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("%s: the answers did not arrive: %v", name, err)
		}
		state, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](`(() => {
			const td = document.querySelector("table.heat td.h10");
			if (td) td.dispatchEvent(new PointerEvent("pointerover", {bubbles: true}));
			return {
				reloaded: window.notReloaded !== true,
				best: document.querySelector(".best-list li.first").textContent,
				full: document.querySelectorAll("table.heat td.h10").length,
				who: document.querySelector("#who").textContent,
			};
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if state["reloaded"] == true {
			t.Errorf("%s: the page was reloaded", name)
		}
		if best := state["best"].(string); !strings.Contains(best, "10:30–11:30") {
			t.Errorf("%s: best time %q; want 10:30–11:30", name, best)
		}
		if full := state["full"].(float64); full == 0 {
			t.Errorf("%s: no heat-map cell shows everyone free", name)
		}
		if who := state["who"].(string); !strings.Contains(who, "Ada (preferred)") || !strings.Contains(who, "Grace (fine)") {
			t.Errorf("%s: who is free = %q; want Ada and Grace", name, who)
		}
		apptest.Screenshot(t, ctx, "meet-live-"+name)
	}

	// The organizer closes the poll: the decision appears and the join form
	// goes, still without a reload.
	_, body := s.get(admin)
	choice := regexp.MustCompile(`name="choice" value="([^"]+)"`).FindStringSubmatch(body)
	if choice == nil {
		t.Fatal("the admin page offers no time to close on")
	}
	s.mustRedirect(s.post(admin+"/close", url.Values{"choice": {choice[1]}}))
	if _, err := chromedp.Run(desk, chromedp.Poll[bool](`!!document.querySelector("section.decision") && !document.querySelector("#join-form") && window.notReloaded === true`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("the closed poll did not show live: %v", err)
	}
	if mine, err := chromedp.Run(desk, chromedp.Evaluate[string](`document.querySelector("#my-answers:not([hidden])")?.textContent || ""`)); err != nil || mine != "You answered as Me" {
		t.Errorf("#my-answers = %q after the live updates (%v); want it kept", mine, err)
	}
	apptest.Screenshot(t, desk, "meet-live-closed")
}
