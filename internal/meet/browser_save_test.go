package meet_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserStrokeSavedOnLeave paints a stroke and leaves the page at once,
// without waiting for "Saved": the stroke must be there on coming back. While
// the change is on its way the status says "Saving…", never "Saved".
func TestBrowserStrokeSavedOnLeave(t *testing.T) {
	ctx := apptest.Browser(t, 1280, 900)
	m := apptest.One(t)
	s := newSite(t, m)
	pub, _ := s.createPoll("Quick painter")
	own := s.join(pub, "Ada")
	base := m.URL()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(chromedp.Do(ctx, chromedp.Navigate(base+own), chromedp.WaitVisible(`table.grid.paint`),
		chromedp.Evaluate[chromedp.Void](`document.querySelector("table.grid.paint").scrollIntoView({block: "center"})`)))
	xy := func(row, col int) (float64, float64) {
		r, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(() => {
			const td = document.querySelectorAll("table.grid.paint tbody tr")[%d].querySelectorAll("td")[%d];
			const b = td.getBoundingClientRect();
			return [b.left + b.width / 2, b.top + b.height / 2];
		})()`, row, col)))
		must(err)
		return r[0], r[1]
	}
	held := func(p *input.DispatchMouseEventParams) {
		p.Button, p.Buttons, p.ClickCount = input.MouseButtonLeft, 1, 1
	}
	stroke := func(fromRow, toRow, col int) {
		x0, y0 := xy(fromRow, col)
		x1, y1 := xy(toRow, col)
		must(chromedp.Do(ctx,
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x0, y0),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, x0, y0, held),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, x1, y1, held),
			chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, x1, y1, held),
		))
	}
	painted := func() int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.grid.paint td.p1").length`))
		must(err)
		return n
	}

	// One stroke of four cells, saved normally; then a second stroke and
	// away at once.
	stroke(0, 3, 0)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#save-state").textContent === "Saved"`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		t.Fatalf("first stroke not saved: %v", err)
	}
	stroke(4, 9, 1)
	state, err := chromedp.Run(ctx, chromedp.Text(`#save-state`))
	must(err)
	if state != "Saving…" {
		t.Errorf("status right after a stroke = %q; want Saving…", state)
	}
	must(chromedp.Do(ctx, chromedp.Navigate(base+pub), chromedp.WaitVisible(`table.heat`)))

	// Back: both strokes are there (the save is awaited, not slept on).
	deadline := time.Now().Add(10 * time.Second)
	for {
		must(chromedp.Do(ctx, chromedp.Navigate(base+own), chromedp.WaitVisible(`table.grid.paint`)))
		n := painted()
		if n == 10 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after leaving at once and coming back, %d cells painted; want 10 (4 + 6)", n)
		}
	}
}
