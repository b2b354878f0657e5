package meet_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserCommentKeptWhenLocked: Ada, in a browser in Santiago, types a
// comment while the organizer closes the poll; posting it brings her page
// back with the reason and her comment still in the box (desktop and phone
// width). Her page also lists the two passes of 23:45-24:00 she typed on
// Santiago's 2027-04-03 as two pieces (issue item 15).
func TestBrowserCommentKeptWhenLocked(t *testing.T) {
	m := apptest.One(t)
	s := newSite(t, m)
	for _, width := range []int{1200, 390} {
		f := url.Values{"title": {"Late"}, "start_date": {"2027-04-03"}, "end_date": {"2027-04-03"},
			"day_start": {"22:00"}, "day_end": {"24:00"}, "tz": {"America/Santiago"}, "duration": {"15"}}
		admin := s.mustRedirect(s.post("/meet/polls", f))
		pub := admin[:strings.Index(admin, "/admin/")]
		ada := s.join(pub, "Ada")
		s.mustRedirect(s.post(ada+"/timeframes", url.Values{"date": {"2027-04-03"}, "start": {"23:45"}, "end": {"24:00"}, "tier": {"1"}, "tz": {"America/Santiago"}}))

		ctx := apptest.BrowserInZone(t, "America/Santiago", width, 900)
		const typed = "Saturday night suits me, either pass"
		if err := chromedp.Do(ctx, chromedp.Navigate(m.URL()+ada), chromedp.WaitVisible(`#comment-form`),
			chromedp.SendKeys(`#body`, typed)); err != nil {
			t.Fatal(err)
		}
		list, err := chromedp.Run(ctx, chromedp.Text(`ul.timeframes`))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"Sat 3 Apr, 23:45 (UTC−3)–24:00 (UTC−3) · preferred", "Sat 3 Apr, 23:45 (UTC−4)–24:00 · preferred"} {
			if !strings.Contains(list, want) {
				t.Errorf("%d px: timeframes %q lack %q", width, list, want)
			}
		}
		s.mustRedirect(s.post(admin+"/close", url.Values{"choice": {"other"}, "date": {"2027-04-03"}, "time": {"22:00"}, "tz": {"America/Santiago"}}))
		if err := chromedp.Do(ctx, chromedp.Submit(`#body`), chromedp.WaitVisible(`#body-error`)); err != nil {
			t.Fatalf("%d px: no message after posting on the closed poll: %v", width, err)
		}
		msg, err := chromedp.Run(ctx, chromedp.Text(`#body-error`))
		if err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, chromedp.Value(`#body`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(msg, "This poll is locked") || got != typed {
			t.Errorf("%d px: message %q, box %q; want the lock's reason and %q", width, msg, got, typed)
		}
		apptest.Screenshot(t, ctx, "meet-comment-kept-locked-"+map[int]string{1200: "1200", 390: "390"}[width])
	}
}
