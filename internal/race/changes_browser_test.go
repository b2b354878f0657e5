package race_test

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserChangesAndClosing: on a wide screen and on a phone, the
// director sets the rule on the basics page, edits a registrant, closes
// an event (asked first) and the race page says so; the runner changes her
// details (a refused form first) and cancels, asked first with the refund.
func TestBrowserChangesAndClosing(t *testing.T) {
	for _, width := range []int{1200, 390} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			br := apptest.Browser(t, width, 900)
			m := apptest.One(t)
			dir, ann := signedIn(t, m, "dora"), signedIn(t, m, "ann")
			slug, ev, entry := changesRace(t, dir, ann)
			admin := "/race/r/" + slug + "/admin"
			base, w := m.URL(), strconv.Itoa(width)
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			// The director: the rule, as typed, refused then saved.
			must(chromedp.Do(br,
				apptest.SignIn(base, "dora", "password-dora"),
				chromedp.Navigate(base+admin+"/basics#policy"),
				chromedp.WaitVisible(`#policy`),
				chromedp.Click(`input[name=refund][value=partial]`),
				chromedp.SetValue(`#percent`, "150"),
				chromedp.Click(`form[action*="/policy"] button[type=submit]`),
				chromedp.WaitVisible(`#percent-error`),
			))
			shot(t, br, "race-policy-refused-"+w)
			must(chromedp.Do(br,
				chromedp.SetValue(`#percent`, "50"),
				chromedp.SetValue(`#edit_date`, nyDay(t, 10)),
				chromedp.SetValue(`input[name=edit_time]`, "18:00"),
				chromedp.Click(`form[action*="/policy"] button[type=submit]`),
				chromedp.WaitVisible(`.flash.ok`),
			))
			shot(t, br, "race-policy-saved-"+w)
			// A registrant edited from the list.
			must(chromedp.Do(br,
				chromedp.Navigate(base+admin+"/events/"+ev+"/entrants"),
				chromedp.Click(`a[href$="/edit"]`),
				chromedp.WaitVisible(`#shirt`),
				chromedp.SetValue(`#shirt`, "L"),
				chromedp.SetValue(`#team`, "Dock Runners"),
			))
			shot(t, br, "race-registrant-edit-"+w)
			must(chromedp.Do(br,
				chromedp.Click(`form[action$="/edit"] button[type=submit]`),
				chromedp.WaitVisible(`.flash.ok`),
			))
			shot(t, br, "race-registrants-edited-"+w)
			awaitMail(t, m, "ann@example.com", "Your details changed")
			// The event closed, asked first.
			must(chromedp.Do(br,
				chromedp.Navigate(base+admin+"/events"),
				chromedp.Click(`a[href$="/close"]`),
				chromedp.WaitVisible(`form[action$="/close"] button`),
			))
			shot(t, br, "race-close-confirm-"+w)
			must(chromedp.Do(br,
				chromedp.Click(`form[action$="/close"] button`),
				chromedp.WaitVisible(`form[action$="/reopen"]`),
			))
			shot(t, br, "race-events-closed-"+w)
			must(chromedp.Do(br, chromedp.Navigate(base+"/race/r/"+slug), chromedp.WaitVisible(`.event .badge`)))
			if got, err := chromedp.Run(br, chromedp.Text(`.event`)); err != nil || !strings.Contains(got, "Registration closed") {
				t.Errorf("race page after closing: %q, %v", got, err)
			}
			shot(t, br, "race-page-closed-"+w)

			// The runner, in her own browser: her details changed, then
			// her registration cancelled.
			br = apptest.Browser(t, width, 900)
			must(chromedp.Do(br,
				apptest.SignIn(base, "ann", "password-ann"),
				chromedp.Navigate(base+"/race/mine"),
				chromedp.WaitVisible(`a[href$="/change"]`),
			))
			shot(t, br, "race-mine-actions-"+w)
			must(chromedp.Do(br,
				chromedp.Navigate(base+entry+"/done"),
				chromedp.WaitVisible(`.own-actions`),
			))
			shot(t, br, "race-registration-own-"+w)
			must(chromedp.Do(br,
				chromedp.Click(`.own-actions a[href$="/change"]`),
				chromedp.WaitVisible(`#first_name`),
				chromedp.Evaluate[chromedp.Void](`document.querySelector("#first_name").value = ""`),
				chromedp.Evaluate[chromedp.Void](`document.querySelector("#first_name").required = false`), // the server's check, not the browser's
				chromedp.Click(`form[action$="/change"] button[type=submit]`),
				chromedp.WaitVisible(`#first_name-error`),
			))
			shot(t, br, "race-change-refused-"+w)
			must(chromedp.Do(br,
				chromedp.SetValue(`#first_name`, "Anna"),
				chromedp.SetValue(`#shirt`, "M"),
				chromedp.Click(`form[action$="/change"] button[type=submit]`),
				chromedp.WaitVisible(`.confirmation`),
			))
			if got, err := chromedp.Run(br, chromedp.Text(`main`)); err != nil || !strings.Contains(got, "Your details are changed.") ||
				!strings.Contains(got, "Anna Runner") {
				t.Errorf("after the change: %q, %v", got, err)
			}
			// After the cutoff (the director moves it to yesterday): the
			// change page says until when, and offers no saving.
			postOK(t, dir, admin+"/policy", url.Values{"refund": {"partial"}, "percent": {"50"}, "edit_date": {nyDay(t, -1)}, "edit_time": {"09:00"}})
			must(chromedp.Do(br,
				chromedp.Navigate(base+entry+"/change"),
				chromedp.WaitVisible(`.flash.info`),
			))
			shot(t, br, "race-change-after-cutoff-"+w)
			must(chromedp.Do(br,
				chromedp.Navigate(base+entry+"/done"),
				chromedp.Click(`.own-actions a[href$="/cancel"]`),
				chromedp.WaitVisible(`form[action*="/cancel"] button`),
			))
			if got, err := chromedp.Run(br, chromedp.Text(`main`)); err != nil || !strings.Contains(got, "12.75 USD (50 % of 25.50 USD)") {
				t.Errorf("the cancellation page: %q, %v", got, err)
			}
			shot(t, br, "race-cancel-own-confirm-"+w)
			must(chromedp.Do(br,
				chromedp.Click(`form[action*="/cancel"] button`),
				chromedp.WaitVisible(`.flash.info`),
			))
			shot(t, br, "race-cancel-own-done-"+w)
		})
	}
}

// shot takes a screenshot of br's page as name, and fails the test if
// the page is wider than the window (naming the element that sticks out).
func shot(t *testing.T, br context.Context, name string) {
	t.Helper()
	wide, err := chromedp.Run(br, chromedp.Evaluate[string](`document.documentElement.scrollWidth <= window.innerWidth ? "" :
		[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > window.innerWidth && !e.closest(".table-scroll"))
			.map(e => e.tagName + "." + e.className).slice(-3).join(", ")`))
	if err != nil || wide != "" {
		t.Errorf("%s: the page is wider than the window: %s (%v)", name, wide, err)
	}
	apptest.Screenshot(t, br, name)
}
