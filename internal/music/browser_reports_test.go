package music_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/music"
	"github.com/tutti-dev/tutti/internal/roar"
)

// TestBrowserReportsPages: the moderators' pages of music and roar, one
// core list (social.ReportsList), at a desktop's and a phone's width; a
// moderator dismisses a report from music's.
func TestBrowserReportsPages(t *testing.T) {
	desk, phone, m, must := browsers(t)
	base := m.URL()
	ann, bob := signUp(t, m, "ann"), signUp(t, m, "bob")
	spam := ann.share("https://example.com/spam", "Buy followers now!!! #deal", "public")
	ann.share("https://www.youtube.com/watch?v=dQw4w9WgXcQ", "A song with a long comment that wraps on a phone #x", "public")
	res, body := bob.Post("/music/p/"+spam+"/report", url.Values{"reason": {"Spam: it sells followers."}})
	apptest.WantStatus(t, res, body, http.StatusSeeOther)
	_, page := ann.Get("/music/u/ann")
	if m := postIDs.FindAllStringSubmatch(page, -1); len(m) == 2 {
		res, body = bob.Post("/music/p/"+m[0][1]+"/report", url.Values{"reason": {"Not music?"}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
	}
	res, body = bob.Post("/roar/roars", url.Values{"body": {"a roar to report #spam"}})
	if res.StatusCode >= 400 {
		t.Fatalf("roar: %d %s", res.StatusCode, body)
	}
	_, page = bob.Get("/roar/u/bob")
	if m := regexp.MustCompile(`id="r-(\d+)"`).FindStringSubmatch(page); m != nil {
		res, body = ann.Post("/roar/r/"+m[1]+"/report", url.Values{"reason": {"Spam, I think."}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
	} else {
		t.Fatalf("no roar on bob's page:\n%s", page)
	}
	for ctx, name := range map[context.Context]string{desk: "mod", phone: "mod2"} {
		must(chromedp.Do(ctx, apptest.SignUp(base, name, name+"@example.com", "password-"+name)))
		for _, r := range []auth.Role{{App: "music", Name: music.RoleModerator}, {App: "roar", Name: roar.RoleModerator}} {
			must(m.Auth.Grant(context.Background(), name, r))
		}
	}
	for ctx, size := range map[context.Context]string{desk: "desktop", phone: "phone"} {
		must(chromedp.Do(ctx, chromedp.Navigate(base+"/music/reports"), chromedp.WaitVisible(`section.report`)))
		apptest.Screenshot(t, ctx, "music-reports-"+size)
	}
	n, err := chromedp.Run(desk, chromedp.Evaluate[int](`document.querySelectorAll("section.report").length`))
	must(err)
	must(chromedp.Do(desk,
		apptest.ClickAndLoad(`section.report form[action$="/dismiss"] button`),
	))
	after, err := chromedp.Run(desk, chromedp.Evaluate[int](`document.querySelectorAll("section.report").length`))
	must(err)
	if n < 1 || after != n-1 {
		t.Errorf("reports: %d before dismissing one, %d after", n, after)
	}
	for ctx, size := range map[context.Context]string{desk: "desktop", phone: "phone"} {
		must(chromedp.Do(ctx, chromedp.Navigate(base+"/roar/reports"), chromedp.WaitVisible(`section.report`)))
		apptest.Screenshot(t, ctx, "roar-reports-"+size)
	}
}
