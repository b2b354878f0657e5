package roar_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/roar"
)

// TestBrowserTrending: the Trending box beside the timeline (below the
// menu on a phone) lists the hashtags in use, and a tag in it opens its
// page.
func TestBrowserTrending(t *testing.T) {
	ann := apptest.Browser(t, 1200, 900)
	bob := apptest.Browser(t, 390, 844) // a phone
	m := apptest.One(t)
	base := m.URL()
	ctx := context.Background()
	signupIn(t, ann, base, "ann")
	signupIn(t, bob, base, "bob")
	svc := apptest.AppOf[*roar.App](t, m).Service()
	for _, p := range []struct{ who, body string }{
		{"ann", "Late set at the #jazz club, then #blues until three"},
		{"bob", "Who else is going to the #jazz festival? #summer"},
		{"ann", "New strings on the old guitar #gear"},
		{"bob", "Practising scales all morning #jazz #practice"},
	} {
		u, err := m.Auth.ByUsername(ctx, p.who)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Post(ctx, u, p.body, 0); err != nil {
			t.Fatal(err)
		}
	}
	// The board is computed again just after the roars: reload until the
	// box lists them.
	open := func(b context.Context, path string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			if err := chromedp.Do(b, chromedp.Navigate(base+path), chromedp.WaitVisible(`.roar-main`)); err != nil {
				t.Fatal(err)
			}
			n, err := chromedp.Run(b, chromedp.Evaluate[int](`document.querySelectorAll("section.trending li").length`))
			if err == nil && n == 5 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d tags in the Trending box (%v); want 5", path, n, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	open(ann, "/roar/")
	first, err := chromedp.Run(ann, chromedp.Evaluate[string](`document.querySelector("section.trending li").textContent`))
	if err != nil || !strings.Contains(first, "#jazz") || !strings.Contains(first, "3 roars") {
		t.Errorf("the box's first tag = %q, %v; want #jazz, 3 roars", first, err)
	}
	apptest.Screenshot(t, ann, "roar-trending-desktop")

	open(bob, "/roar/home")
	if err := chromedp.Do(bob, chromedp.Click(`section.trending a[href="/roar/tags/jazz"]`), chromedp.WaitVisible(`h1.roar-title`)); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(bob, apptest.WaitText(`h1.roar-title`, "#jazz"))
	if err != nil {
		t.Fatalf("after clicking #jazz in the box: title %q, %v", title, err)
	}
	n, err := chromedp.Run(bob, chromedp.Evaluate[int](`document.querySelectorAll("#timeline article.roar").length`))
	if err != nil || n != 3 {
		t.Errorf("the #jazz page shows %d roars (%v); want 3", n, err)
	}
	// Only bob's own roars offer him to delete them.
	owners, err := chromedp.Run(bob, chromedp.Evaluate[string](`[...document.querySelectorAll("#timeline form.remove")]
		.filter(f => getComputedStyle(f).display !== "none").map(f => f.dataset.owner).join(",")`))
	if err != nil || owners != "bob,bob" {
		t.Errorf("bob is offered to delete the roars of %q (%v); want bob,bob", owners, err)
	}
	apptest.Screenshot(t, bob, "roar-trending-phone")
}
