package music_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/music"
)

// TestBrowserFriendsShareCommentLike: two friends in two browsers (a
// desktop and a phone). Ann shares a song link with a #tag; Bob sees it on
// his discovery page, comments and likes; Ann's unread count goes up in
// her page's header without a reload. Screenshots of every page at both
// widths are kept as artifacts.
func TestBrowserFriendsShareCommentLike(t *testing.T) {
	ann, bob, m, must := browsers(t)
	base := m.URL()
	for ctx, name := range map[context.Context]string{ann: "ann", bob: "bob"} {
		must(chromedp.Do(ctx, apptest.SignUp(base, name, name+"@example.com", "password-"+name)))
	}
	must(chromedp.Do(ann,
		chromedp.Navigate(base+"/music/people"),
		chromedp.SendKeys(`#q`, "bo"),
	))
	// The type-ahead lists bob under the box.
	_, err := chromedp.Run(ann, apptest.WaitText(`#people`, "@bob"))
	must(err)
	must(chromedp.Do(ann, chromedp.Click(`#people a[href="/music/u/bob"]`)))
	must(befriendIn(base, ann, "ann", bob, "bob"))
	must(chromedp.Do(ann,
		chromedp.Navigate(base+"/music/"),
		chromedp.WaitVisible(`#share #url`),
		chromedp.SendKeys(`#share #url`, "https://www.youtube.com/watch?v=dQw4w9WgXcQ"),
		chromedp.SendKeys(`#share #comment`, "Sunday morning song #sundays"),
		chromedp.Click(`#share button[type=submit]`),
		chromedp.WaitVisible(`#feed article.post .player a.play`),
	))
	// Ann's page is open, its stream connected, before Bob acts.
	waitFor(t, func() bool { return streams(m) >= 1 })
	unseen := func() string {
		s, err := chromedp.Run(ann, chromedp.Evaluate[string](`(() => { const b = document.getElementById("unseen"); return b.hidden ? "0" : b.textContent; })()`))
		must(err)
		return s
	}
	before := unseen()
	must(chromedp.Do(bob,
		chromedp.Navigate(base+"/music/"),
		chromedp.WaitVisible(`#feed article.post .post-text`),
	))
	seen, err := chromedp.Run(bob, apptest.WaitText(`#feed article.post .post-text`, "Sunday morning song"))
	must(err)
	if !strings.Contains(seen, "#sundays") {
		t.Fatalf("bob sees %q; want ann's song with its tag", seen)
	}
	must(chromedp.Do(bob,
		chromedp.SendKeys(`#feed article.post .comment-form input[name=body]`, "What a tune!"),
		chromedp.Submit(`#feed article.post .comment-form input[name=body]`),
		chromedp.WaitVisible(`#feed article.post .recent .comment`),
		chromedp.Click(`#feed article.post form[action$="/like"] button`),
		chromedp.WaitVisible(`#feed article.post form[action$="/like"] button.on`),
	))
	likes, err := chromedp.Run(bob, apptest.WaitText(`#feed article.post .like-count`, "1"))
	must(err)
	if likes != "1" {
		t.Fatalf("bob sees %s likes; want 1", likes)
	}
	// Pressing play puts the site's player in the card.
	must(chromedp.Do(bob, chromedp.Click(`#feed article.post .player a.play`), chromedp.WaitVisible(`#feed article.post .player iframe`)))
	src, err := chromedp.Run(bob, chromedp.Evaluate[string](`document.querySelector("#feed article.post .player iframe").src`))
	must(err)
	if !strings.HasPrefix(src, "https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ") {
		t.Fatalf("the player is %q; want YouTube's", src)
	}
	// Ann's badge counts the comment and the like, live.
	deadline := time.Now().Add(15 * time.Second)
	for unseen() != addTwo(before) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := unseen(); got != addTwo(before) {
		t.Fatalf("ann's unread count: %s, then %s; want 2 more", before, got)
	}
	must(chromedp.Do(ann, chromedp.Navigate(base+"/music/notifications")))
	_, err = chromedp.Run(ann, apptest.WaitText(`.notes`, "commented on your post"))
	must(err)
	apptest.Screenshot(t, ann, "music-discovery-desktop")
	apptest.Screenshot(t, bob, "music-discovery-phone")
	must(chromedp.Do(ann, chromedp.Navigate(base+"/music/"), chromedp.WaitVisible(`#feed`)))
	apptest.Screenshot(t, ann, "music-discovery-desktop-reloaded")
	for _, p := range []string{"notifications", "hot", "people?q=a", "friends", "u/ann", "everyone", "tags/sundays"} {
		for ctx, size := range map[context.Context]string{ann: "desktop", bob: "phone"} {
			must(chromedp.Do(ctx, chromedp.Navigate(base+"/music/"+p), chromedp.WaitVisible(`.music-main`)))
			// A page left closes its stream: two browsers, one page each,
			// hold two (a page left holding its own kept the next page
			// waiting for a free connection, 55 s in six).
			waitFor(t, func() bool { return streams(m) <= 2 })
			apptest.Screenshot(t, ctx, "music-"+strings.NewReplacer("/", "-", "?", "-", "=", "-").Replace(p)+"-"+size)
		}
	}
}

// befriendIn makes a (named an) and b (bn) friends in their browsers: a
// asks on b's page (open in a), b accepts on the friends page.
func befriendIn(base string, a context.Context, an string, b context.Context, bn string) error {
	befriend := `form[action="/music/u/` + bn + `/befriend"] button`
	err := chromedp.Do(a,
		chromedp.WaitVisible(befriend),
		chromedp.Click(befriend),
		chromedp.WaitVisible(`form[action="/music/u/`+bn+`/cancel"]`),
	)
	if err != nil {
		return err
	}
	accept := `form[action="/music/u/` + an + `/accept"] button`
	return chromedp.Do(b,
		chromedp.Navigate(base+"/music/friends"),
		chromedp.WaitVisible(accept),
		chromedp.Click(accept),
		chromedp.WaitVisible(`.people a[href="/music/u/`+an+`"]`),
	)
}

// browsers are a desktop's browser and a phone's (390 px) on one running
// site, and must, which ends the test on an error.
func browsers(t *testing.T) (desk, phone context.Context, m *app.Main, must func(error)) {
	desk, phone = apptest.Browser(t, 1200, 900), apptest.Browser(t, 390, 844)
	must = func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	return desk, phone, apptest.One(t), must
}

func addTwo(s string) string { return string(rune(s[0] + 2)) }

// streams is the live streams open on every instance of m.
func streams(m *app.Main) int {
	n := 0
	for _, i := range apptest.Instances(m) {
		for _, a := range i.Apps {
			if ma, ok := a.(*music.App); ok {
				n += ma.Streams()
			}
		}
	}
	return n
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
