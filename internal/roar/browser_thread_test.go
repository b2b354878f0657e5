package roar_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/roar"
)

// TestBrowserReplyCountsLive: two people on one thread, in two browsers.
// One replies; on the replier's page and, without a reload, on the
// other's, the reply shows, the heading says "1 reply" and the roar's
// reply count says 1. A second reply makes it "2 replies" on both.
func TestBrowserReplyCountsLive(t *testing.T) {
	ann := apptest.Browser(t, 1200, 900)
	bob := apptest.Browser(t, 390, 844) // a phone
	m := apptest.One(t)
	base := m.URL()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	poll := func(ctx context.Context, who, js string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(10*time.Second)))
		if err != nil {
			state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("replies-h").textContent + " / " + document.querySelector(".roar.focus .reply-count").textContent + " / " + document.querySelectorAll("#timeline > article").length`))
			t.Fatalf("%s: waiting for %s: %v (heading / count / replies shown: %s)", who, js, err, state)
		}
	}
	signup := func(ctx context.Context, name string) { t.Helper(); signupIn(t, ctx, base, name) }
	signup(ann, "ann")
	signup(bob, "bob")
	// Ann's roar, written directly: no timeline page of hers stays open
	// (the browser may keep a page it left, and its stream, for going back).
	u, err := m.Auth.ByUsername(context.Background(), "ann")
	must(err)
	r, err := apptest.AppOf[*roar.App](t, m).Service().Post(context.Background(), u, "Who brings the music stands on Sunday?", 0)
	must(err)
	id := itoa(r.ID)
	thread := base + "/roar/r/" + id
	for _, ctx := range []context.Context{ann, bob} {
		must(chromedp.Do(ctx, chromedp.Navigate(thread), chromedp.WaitVisible(`#replies-h`)))
	}
	// Both thread pages are open and listening before bob replies.
	waitFor(t, func() bool { return streams(t, m) == 2 })
	_, err = chromedp.Run(ann, chromedp.Evaluate[bool](`(window.__sameLoad = true)`))
	must(err)

	reply := func(ctx context.Context, text string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector("#compose textarea").value = "") === ""`))
		must(err)
		must(chromedp.Do(ctx,
			chromedp.SendKeys(`#compose textarea`, text),
			chromedp.Click(`#compose button[type=submit]`),
		))
	}
	shows := func(n int, heading string) string {
		return `document.querySelectorAll("#timeline > article.roar").length === ` + itoa(int64(n)) +
			` && document.getElementById("replies-h").textContent.trim() === "` + heading + `"` +
			` && document.querySelector(".roar.focus .reply-count").textContent.trim() === "` + itoa(int64(n)) + `"`
	}
	reply(bob, "I will, two of them")
	poll(bob, "bob (the replier)", shows(1, "1 reply")+` && document.querySelector("#compose textarea").value === ""`)
	poll(ann, "ann (watching)", shows(1, "1 reply"))
	apptest.Screenshot(t, ann, "roar-thread-reply-1200")
	apptest.Screenshot(t, bob, "roar-thread-reply-390")

	reply(ann, "Thanks! I bring the lights")
	poll(ann, "ann (the replier)", shows(2, "2 replies"))
	poll(bob, "bob (watching)", shows(2, "2 replies"))
	same, err := chromedp.Run(ann, chromedp.Evaluate[bool](`window.__sameLoad === true`))
	must(err)
	if !same {
		t.Fatal("ann's page reloaded")
	}
	// A reload agrees with what the script showed.
	must(chromedp.Do(bob, chromedp.Navigate(thread), chromedp.WaitVisible(`#replies-h`)))
	poll(bob, "bob (reloaded)", shows(2, "2 replies"))
}

// signupIn makes account name in the browser ctx, through the sign-up form.
func signupIn(t *testing.T, ctx context.Context, base, name string) {
	t.Helper()
	if err := chromedp.Do(ctx, apptest.SignUp(base, name, name+"@example.com", "password-"+name)); err != nil {
		t.Fatal(err)
	}
}

// TestBrowserLiveReplyOnALongThread: on a thread longer than its first page
// (a "More replies" link), a reply from elsewhere changes the counts live
// but is not put after the first page's replies, out of order; the
// replier's own reply does show on their page.
func TestBrowserLiveReplyOnALongThread(t *testing.T) {
	ann := apptest.Browser(t, 1200, 900)
	m := apptest.One(t)
	base := m.URL()
	ctx := context.Background()
	signupIn(t, ann, base, "ann")
	u, err := m.Auth.ByUsername(ctx, "ann")
	if err != nil {
		t.Fatal(err)
	}
	svc := apptest.AppOf[*roar.App](t, m).Service()
	root, err := svc.Post(ctx, u, "Your favourite chord?", 0)
	if err != nil {
		t.Fatal(err)
	}
	// 101 replies, by users within the posting limit (bursts of 10).
	var last *auth.User
	for i := range 11 {
		last, err = m.Auth.Create(ctx, auth.Signup{Username: "fan" + itoa(int64(i)), Email: "fan" + itoa(int64(i)) + "@example.com", Password: "password-fan"})
		if err != nil {
			t.Fatal(err)
		}
		for j := range 10 {
			if i == 10 && j > 0 {
				break
			}
			if _, err := svc.Post(ctx, last, "A minor ninth "+itoa(int64(10*i+j)), root.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := chromedp.Do(ann, chromedp.Navigate(base+"/roar/r/"+itoa(root.ID)), chromedp.WaitVisible(`#replies-h`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return streams(t, m) == 1 })
	state := `document.getElementById("replies-h").textContent.trim() + " / " + document.querySelector(".roar.focus .reply-count").textContent.trim() + " / " + document.querySelectorAll("#timeline > article.roar").length + " / " + !!document.querySelector('.pager a[rel="next"]')`
	check := func(want string) {
		t.Helper()
		_, err := chromedp.Run(ann, chromedp.Poll[bool](state+` === "`+want+`"`, chromedp.WithPollingTimeout(10*time.Second)))
		if err != nil {
			got, _ := chromedp.Run(ann, chromedp.Evaluate[string](state))
			t.Fatalf("heading / count / replies shown / more link: %s; want %s", got, want)
		}
	}
	check("101 replies / 101 / 100 / true")
	if _, err := svc.Post(ctx, last, "Add9, from elsewhere", root.ID); err != nil {
		t.Fatal(err)
	}
	check("102 replies / 102 / 100 / true")
	if err := chromedp.Do(ann,
		chromedp.SendKeys(`#compose textarea`, "A plain major triad"),
		chromedp.Click(`#compose button[type=submit]`),
	); err != nil {
		t.Fatal(err)
	}
	check("103 replies / 103 / 101 / true")
}
