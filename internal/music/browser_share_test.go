package music_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserShareLink: ann makes the share link of her friends-only post
// on its page; a visitor on a phone opens it and sees the post; ann
// revokes it (asked first) and the visitor's reload is not found.
// Screenshots of the author's box, the share page and the revoke page.
func TestBrowserShareLink(t *testing.T) {
	ann, vis, m, must := browsers(t)
	base := m.URL()
	must(chromedp.Do(ann,
		apptest.SignUp(base, "ann", "ann@example.com", "password-ann"),
		chromedp.Navigate(base+"/music/"),
		chromedp.WaitVisible(`#share #url`),
		chromedp.SendKeys(`#share #url`, "https://soundcloud.com/ann/secret-demo"),
		chromedp.SendKeys(`#share #comment`, "Demo of the new song, friends only for now #wip"),
		chromedp.Click(`#share input[value=friends]`),
		chromedp.Click(`#share button[type=submit]`),
		chromedp.WaitVisible(`#feed article.post.friends-only`),
	))
	id, err := chromedp.Run(ann, chromedp.Evaluate[string](`document.querySelector("#feed article.post").dataset.id`))
	must(err)
	must(chromedp.Do(ann,
		chromedp.Navigate(base+"/music/p/"+id),
		chromedp.WaitVisible(`#share-link form button`),
	))
	apptest.Screenshot(t, ann, "music-share-box-desktop")
	must(chromedp.Do(ann,
		chromedp.Click(`#share-link form button`),
		chromedp.WaitVisible(`#share-url`),
	))
	link, err := chromedp.Run(ann, chromedp.Evaluate[string](`document.getElementById("share-url").value`))
	must(err)
	if !strings.Contains(link, "/music/s/") {
		t.Fatalf("the share link is %q", link)
	}
	apptest.Screenshot(t, ann, "music-share-link-desktop")
	must(chromedp.Do(vis, chromedp.Navigate(link), chromedp.WaitVisible(`article.post`)))
	text, err := chromedp.Run(vis, apptest.WaitText(`article.post`, "Demo of the new song"))
	must(err)
	if !strings.Contains(text, "#wip") {
		t.Errorf("the visitor sees %q", text)
	}
	apptest.Screenshot(t, vis, "music-share-page-phone")
	must(chromedp.Do(ann, chromedp.Navigate(link), chromedp.WaitVisible(`article.post`)))
	apptest.Screenshot(t, ann, "music-share-page-desktop")
	must(chromedp.Do(ann,
		chromedp.Navigate(base+"/music/p/"+id),
		chromedp.WaitVisible(`#share-link a[href$="/share/revoke"]`),
		chromedp.Click(`#share-link a[href$="/share/revoke"]`),
		chromedp.WaitVisible(`form[action$="/share/revoke"] button.danger`),
	))
	apptest.Screenshot(t, ann, "music-share-revoke-desktop")
	must(chromedp.Do(ann,
		chromedp.Click(`form[action$="/share/revoke"] button.danger`),
		chromedp.WaitVisible(`#share-link form[action$="/share"] button`),
	))
	must(chromedp.Do(vis, chromedp.Navigate(link), chromedp.WaitVisible(`.error-page, main`)))
	title, err := chromedp.Run(vis, chromedp.Evaluate[string](`document.body.innerText`))
	must(err)
	if strings.Contains(title, "Demo of the new song") {
		t.Errorf("after revoking, the visitor still sees the post")
	}
	apptest.Screenshot(t, vis, "music-share-revoked-phone")
}
