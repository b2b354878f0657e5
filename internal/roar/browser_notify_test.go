package roar_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserUnreadBadgeAndReplyFocus: the unread badge changes without a
// reload (on a page without a timeline too), the notifications page marks
// them read by its own POST, and the reply link puts the cursor in the
// reply box, from another page and on the thread itself.
func TestBrowserUnreadBadgeAndReplyFocus(t *testing.T) {
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
	poll := func(ctx context.Context, js string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second)))
		if err != nil {
			where, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + " active=" + document.activeElement.outerHTML.slice(0, 80)`))
			t.Fatalf("waiting for %s: %v (at %s)", js, err, where)
		}
	}
	eval := func(ctx context.Context, js string) bool {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		must(err)
		return v
	}
	signup := func(ctx context.Context, name string) { t.Helper(); signupIn(t, ctx, base, name) }
	signup(ann, "ann")
	signup(bob, "bob")
	// Ann reads her (empty) notifications: no timeline there, and no badge.
	must(chromedp.Do(ann, chromedp.Navigate(base+"/roar/notifications"), chromedp.WaitVisible(`.notes`)))
	if !eval(ann, `document.getElementById("unseen").hidden`) {
		t.Fatal("badge shown with nothing unread")
	}
	must(chromedp.Do(bob, chromedp.Navigate(base+"/roar/"), chromedp.WaitVisible(`form.compose textarea`)))
	waitFor(t, func() bool { return streams(t, m) == 2 })
	eval(ann, `(window.__sameLoad = true)`)

	// Bob mentions ann: her badge says 1, live.
	must(chromedp.Do(bob,
		chromedp.SendKeys(`form.compose textarea`, "Hello @ann, are you coming to rehearsal?"),
		chromedp.Click(`form.compose button[type=submit]`),
		chromedp.WaitVisible(`#timeline article.roar`),
	))
	_, err := chromedp.Run(ann, apptest.WaitText(`#unseen`, "1"))
	must(err)
	if eval(ann, `document.getElementById("unseen").hidden`) || !eval(ann, `window.__sameLoad === true`) {
		t.Fatal("the badge did not show 1 without a reload")
	}
	poll(ann, `!document.getElementById("notes-new").hidden`) // the page offers the new ones
	apptest.Screenshot(t, ann, "roar-badge-live-desktop")

	// A like of bob's roar by ann: bob's badge, on his timeline, says 1.
	must(chromedp.Do(ann, chromedp.Navigate(base+"/roar/"), chromedp.WaitVisible(`#timeline article.roar`),
		chromedp.Click(`#timeline article.roar form[data-verb=like] button`)))
	_, err = chromedp.Run(bob, apptest.WaitText(`#unseen`, "1"))
	must(err)
	apptest.Screenshot(t, bob, "roar-badge-live-phone")
	// Bob's notifications on the phone: the script marks them read and
	// hides the no-JS button, shown again here for the screenshot's sake.
	must(chromedp.Do(bob, chromedp.Navigate(base+"/roar/notifications"), chromedp.WaitVisible(`.note.unseen`)))
	poll(bob, `document.getElementById("mark-seen").hidden`)
	eval(bob, `(document.getElementById("mark-seen").hidden = false, true)`)
	apptest.Screenshot(t, bob, "roar-notifications-phone")

	// Opening the notifications marks them read by the page's POST.
	must(chromedp.Do(ann, chromedp.Navigate(base+"/roar/notifications"), chromedp.WaitVisible(`.note.unseen`)))
	poll(ann, `document.getElementById("unseen").hidden && document.getElementById("mark-seen").hidden`)
	must(chromedp.Do(ann, chromedp.Navigate(base+"/roar/"), chromedp.WaitVisible(`#timeline`)))
	if !eval(ann, `document.getElementById("unseen").hidden`) {
		t.Fatal("notifications still unread after opening them")
	}

	// The reply link, from the timeline: the thread opens with the cursor in
	// the reply box.
	must(chromedp.Do(ann, chromedp.Click(`#timeline article.roar .roar-actions a.act[title=Reply]`),
		chromedp.WaitVisible(`article.roar.focus`)))
	poll(ann, `document.activeElement === document.querySelector("#compose textarea")`)
	// On the thread itself: away from the box, then the link brings it back.
	eval(ann, `(document.activeElement.blur(), window.scrollTo(0, 0), true)`)
	if eval(ann, `document.activeElement === document.querySelector("#compose textarea")`) {
		t.Fatal("blur did not take the focus away")
	}
	must(chromedp.Do(ann, chromedp.Click(`article.roar.focus .roar-actions a.act[title=Reply]`)))
	poll(ann, `document.activeElement === document.querySelector("#compose textarea")`)
	must(chromedp.Do(ann, chromedp.SendKeys(`#compose textarea`, "Yes, see you there")))
	apptest.Screenshot(t, ann, "roar-reply-focus-desktop")

	// The default avatars (the letter in a circle) at their sizes: 40 px on
	// a timeline, 72 px on a profile, 128 px in the account settings.
	must(chromedp.Do(bob, chromedp.Navigate(base+"/roar/u/bob"), chromedp.WaitVisible(`.profile svg.avatar`)))
	apptest.Screenshot(t, bob, "roar-avatar-profile-phone")
	must(chromedp.Do(ann, chromedp.Navigate(base+"/account/settings"), chromedp.WaitVisible(`svg.avatar.large`)))
	apptest.Screenshot(t, ann, "roar-avatar-settings-desktop")
	for _, c := range []struct {
		ctx  context.Context
		sel  string
		size float64
	}{{bob, `.profile svg.avatar`, 72}, {bob, `.roar-head svg.avatar`, 40}, {ann, `svg.avatar.large`, 128}} {
		if c.sel == `.roar-head svg.avatar` {
			must(chromedp.Do(bob, chromedp.Navigate(base+"/roar/"), chromedp.WaitVisible(`.roar-head svg.avatar`)))
		}
		// The letter's box is centred in the circle and about half its height.
		ok, err := chromedp.Run(c.ctx, chromedp.Evaluate[bool](`(() => {
			const s = document.querySelector(`+"`"+c.sel+"`"+`), b = s.getBoundingClientRect(), l = s.querySelector("text").getBoundingClientRect();
			const dx = (l.left + l.width / 2) - (b.left + b.width / 2), dy = (l.top + l.height / 2) - (b.top + b.height / 2);
			return Math.abs(b.width - `+strconv.FormatFloat(c.size, 'f', -1, 64)+`) < 1 && Math.abs(dx) < b.width * 0.06 && Math.abs(dy) < b.height * 0.12 && l.height > b.height * 0.4 && l.height < b.height * 0.8;
		})()`))
		must(err)
		if !ok {
			t.Errorf("%s: the letter is not centred and in proportion", c.sel)
		}
	}
}
