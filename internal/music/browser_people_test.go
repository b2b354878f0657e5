package music_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserPeopleTypeAhead: typing part of a name without its accents
// ("angs" for Ångström) lists the person under the box as one types, with
// the button of how one stands to them; the suggestion opens their page.
// Screenshots at a desktop's and a phone's width.
func TestBrowserPeopleTypeAhead(t *testing.T) {
	desk, phone, m, must := browsers(t)
	base := m.URL()
	zoe := signUp(t, m, "zoe")
	res, body := zoe.Post("/account/settings", url.Values{"display_name": {"Zoë Ångström"}, "bio": {""}})
	if res.StatusCode >= 400 {
		t.Fatalf("settings: %d\n%s", res.StatusCode, body)
	}
	for _, n := range []string{"angela", "anders", "bob"} {
		signUp(t, m, n)
	}
	emptyBox := chromedp.Evaluate[bool](`(() => { document.getElementById("q").value = ""; return true; })()`)
	clear := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error { _, err := emptyBox(ctx, t); return err })
	for ctx, name := range map[context.Context]string{desk: "ann", phone: "pia"} {
		must(chromedp.Do(ctx, apptest.SignUp(base, name, name+"@example.com", "password-"+name)))
		must(chromedp.Do(ctx,
			chromedp.Navigate(base+"/music/people"),
			chromedp.WaitVisible(`#q`),
			chromedp.SendKeys(`#q`, "angs"),
		))
		_, err := chromedp.Run(ctx, apptest.WaitText(`#people`, "Zoë Ångström"))
		must(err)
		got, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#people li").length`))
		must(err)
		if got != 1 {
			t.Errorf("%s: %d suggestions for angs; want Zoë alone", name, got)
		}
		must(chromedp.Do(ctx, chromedp.WaitVisible(`#people form[action="/music/u/zoe/befriend"] button`)))
		size := map[string]string{"ann": "desktop", "pia": "phone"}[name]
		// A broader start lists several, each with its button.
		must(chromedp.Do(ctx, clear, chromedp.SendKeys(`#q`, "an")))
		got2, err := chromedp.Run(ctx, apptest.WaitText(`#people`, "@anders"))
		if err != nil {
			v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("q").value`))
			t.Fatalf("box %q, list %q: %v", v, got2, err)
		}
		apptest.Screenshot(t, ctx, "music-people-typeahead-"+size)
		must(chromedp.Do(ctx, clear, chromedp.SendKeys(`#q`, "zoe ång")))
		_, err = chromedp.Run(ctx, apptest.WaitText(`#people`, "@zoe"))
		must(err)
		must(chromedp.Do(ctx,
			chromedp.Click(`#people a[href="/music/u/zoe"]`),
			chromedp.WaitVisible(`.profile h1`),
		))
		h, err := chromedp.Run(ctx, apptest.WaitText(`.profile h1`, "Zoë"))
		must(err)
		if h != "Zoë Ångström" {
			t.Errorf("%s opened %q; want Zoë's page", name, h)
		}
	}
}
