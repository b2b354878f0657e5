package roar_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserLiveTimeline: two people in two browsers. One roars, the other
// sees it appear without reloading; a like shows up live in the first.
func TestBrowserLiveTimeline(t *testing.T) {
	ann := apptest.Browser(t, 1280, 900)
	bob := apptest.Browser(t, 390, 844) // a phone
	m := apptest.One(t)
	base := m.URL()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	signup := func(ctx context.Context, name string) {
		t.Helper()
		signupIn(t, ctx, base, name)
		must(chromedp.Do(ctx,
			chromedp.Navigate(base+"/roar/"),
			chromedp.WaitVisible(`form.compose textarea`),
		))
	}
	signup(ann, "ann")
	signup(bob, "bob")
	// Bob's page is open and connected before Ann roars.
	waitFor(t, func() bool { return streams(t, m) == 2 })

	text := "Live from the browser <b>not bold</b> #tutti"
	must(chromedp.Do(ann,
		chromedp.SendKeys(`form.compose textarea`, text),
		chromedp.Click(`form.compose button[type=submit]`),
		chromedp.WaitVisible(`#timeline article.roar .roar-text`),
	))
	seen, err := chromedp.Run(bob, apptest.WaitText(`#timeline article.roar .roar-text`, "Live from the browser"))
	must(err)
	if !strings.Contains(seen, "<b>not bold</b>") {
		t.Fatalf("bob saw %q; want the roar as text", seen)
	}
	// No reload happened on bob's side: the page still has the marker set
	// before the roar arrived.
	_, err = chromedp.Run(bob, chromedp.Evaluate[bool](`(window.__sameLoad = true)`))
	must(err)
	must(chromedp.Do(bob, chromedp.Click(`#timeline article.roar form[data-verb=like] button`)))
	_, err = chromedp.Run(bob, apptest.WaitText(`#timeline article.roar .like-count`, "1"))
	must(err)
	got, err := chromedp.Run(ann, apptest.WaitText(`#timeline article.roar .like-count`, "1"))
	must(err)
	if got != "1" {
		t.Fatalf("ann sees %s likes; want 1", got)
	}
	same, err := chromedp.Run(bob, chromedp.Evaluate[bool](`window.__sameLoad === true`))
	must(err)
	if !same {
		t.Fatal("bob's page reloaded")
	}
	// Ann's own delete button shows on her roar, bob's page has none for it.
	hidden, err := chromedp.Run(bob, chromedp.Evaluate[bool](`document.querySelector("#timeline article.roar form.remove").hidden`))
	must(err)
	if !hidden {
		t.Error("bob is offered to delete ann's roar")
	}
	apptest.Screenshot(t, ann, "roar-live-desktop")
	apptest.Screenshot(t, bob, "roar-live-phone")
}
