package race_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserWriteToRegistrantsAndNotices: on a wide screen and on a
// phone, a director goes from the registrants page to "Write to
// registrants", is refused a too short subject with her message kept, reads
// the page that asks first and sends; her runner's registrations page then
// shows the message with the other changes she was told of (the start
// moved, the place moved, a lottery's draw).
func TestBrowserWriteToRegistrantsAndNotices(t *testing.T) {
	for _, width := range []int{1200, 390} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			br := apptest.Browser(t, width, 900)
			m := apptest.One(t)
			dina := signedIn(t, m, "dina")
			slug := publishRace(t, dina, "5")
			ann := signedIn(t, m, "ann")
			_, page := ann.Get("/race/r/" + slug)
			ev := eventID.FindStringSubmatch(page)[1]
			register(t, ann, slug, ev, "Ann")
			drawNow(t, m, lotteryOf(t, dina, slug, "1", ann))
			admin := "/race/r/" + slug + "/admin"
			f := eventForm(t, "5K", "25.50", "5")
			f.Set("start_time", "09:30")
			postOK(t, dina, admin+"/events/"+ev, f)
			base, w := m.URL(), strconv.Itoa(width)
			if err := chromedp.Do(br,
				apptest.SignIn(base, "dina", "password-dina"),
				chromedp.Navigate(base+admin+"/events/"+ev+"/entrants"),
				chromedp.WaitVisible(`a[href$="/message"]`),
			); err != nil {
				t.Fatal(err)
			}
			apptest.Screenshot(t, br, "race-entrants-write-"+w)
			if err := chromedp.Do(br,
				chromedp.Click(`a[href$="/message"]`),
				chromedp.WaitVisible(`#subject`),
				chromedp.SendKeys(`#subject`, "Hi"),
				chromedp.SendKeys(`#body`, "The car park is on Pier Road this year.\n\nBring a pin for your bib: we hand out none."),
				chromedp.Click(`form[action$="/message"] button[type=submit]`),
				chromedp.WaitVisible(`.error-summary`),
			); err != nil {
				t.Fatal(err)
			}
			if got, err := chromedp.Run(br, chromedp.Value(`#body`)); err != nil || !strings.Contains(got, "Bring a pin") {
				t.Errorf("the message after a short subject was refused: %q, %v", got, err)
			}
			apptest.Screenshot(t, br, "race-message-refused-"+w)
			if err := chromedp.Do(br,
				chromedp.SetValue(`#subject`, "Parking moved"),
				chromedp.Click(`form[action$="/message"] button[type=submit]`),
				chromedp.WaitVisible(`.message-preview`),
			); err != nil {
				t.Fatal(err)
			}
			if got, err := chromedp.Run(br, chromedp.Text(`main`)); err != nil || !strings.Contains(got, "This sends 1 mail to the registrants of 5K") ||
				!strings.Contains(got, "Send 1 mail") {
				t.Errorf("the page that asks first: %q, %v", got, err)
			}
			apptest.Screenshot(t, br, "race-message-confirm-"+w)
			if err := chromedp.Do(br,
				chromedp.Click(`form[action$="/message"] button:not([name])`),
				chromedp.WaitVisible(`.flash.ok`),
			); err != nil {
				t.Fatal(err)
			}
			if got, err := chromedp.Run(br, chromedp.Text(`.flash.ok`)); err != nil || !strings.Contains(got, "Sent to 1 registrant") {
				t.Errorf("after sending: %q, %v", got, err)
			}
			apptest.Screenshot(t, br, "race-message-sent-"+w)
			awaitMail(t, m, "ann@example.com", "Harbour Run · 5K: Parking moved")
			awaitMail(t, m, "ann@example.com", "You were drawn: Harbour Run · Marathon")
			br = apptest.Browser(t, width, 900) // ann's own browser
			if err := chromedp.Do(br,
				apptest.SignIn(base, "ann", "password-ann"),
				chromedp.Navigate(base+"/race/mine"),
				chromedp.WaitVisible(`#notices`),
			); err != nil {
				t.Fatal(err)
			}
			got, err := chromedp.Run(br, chromedp.Text(`.notices`))
			for _, want := range []string{"Harbour Run · 5K: Parking moved", "Bring a pin for your bib", "You were drawn: Harbour Run · Marathon",
				"Take your place", "Start time changed: Harbour Run · 5K"} {
				if err != nil || !strings.Contains(got, want) {
					t.Errorf("ann's notices lack %q: %q, %v", want, got, err)
				}
			}
			apptest.Screenshot(t, br, "race-mine-told-"+w)
		})
	}
}
