package race_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// On a phone: the code's "Apply" keeps a gap from its field and buttons
// centre their text; the registrants table never widens the page (it
// scrolls in its own box); the rehearsal form's fieldsets are drawn, not
// the browser's grooves.
func TestBrowserLooksOnAPhone(t *testing.T) {
	rita := apptest.Browser(t, 390, 844)
	dora := apptest.Browser(t, 390, 844)
	m := apptest.One(t)
	base := m.URL()
	d := signedIn(t, m, "dora")
	slug := publishRace(t, d, "10")
	r := signedIn(t, m, "rita")
	_, page := r.Get("/race/r/" + slug)
	ev := eventID.FindStringSubmatch(page)[1]
	path, _ := r.to(r.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}}))
	entry := strings.TrimSuffix(path, "/details")
	r.to(r.Post(entry+"/details", url.Values{"first_name": {"Rita"}, "last_name": {"Runner-With-A-Rather-Long-Name"}, "email": {"rita@example.com"},
		"birth_date": {"1988-02-03"}, "gender": {"F"}, "emergency": {"Al, 555 0100"}}))
	r.to(r.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
	if err := chromedp.Do(rita, apptest.SignIn(base, "rita", "password-rita"), chromedp.Navigate(base+entry+"/pay"),
		chromedp.WaitVisible(`.code-form button`)); err != nil {
		t.Fatal(err)
	}
	ok, err := chromedp.Run(rita, chromedp.Evaluate[bool](`(() => { const i = document.querySelector(".code-form input[name=code]").getBoundingClientRect(),
			b = document.querySelector(".code-form button").getBoundingClientRect();
			const apart = b.left >= i.right + 4 || b.top >= i.bottom + 4;
			return apart && [...document.querySelectorAll("button, .btn")].every(e => getComputedStyle(e).textAlign === "center"); })()`))
	if err != nil || !ok {
		t.Errorf("the payment page on a phone: Apply touches its field or a button is not centred (%v)", err)
	}
	apptest.Screenshot(t, rita, "race-payment-code-phone")

	if err := chromedp.Do(dora, apptest.SignIn(base, "dora", "password-dora"),
		chromedp.Navigate(base+"/race/r/"+slug+"/admin/events/"+ev+"/entrants"), chromedp.WaitVisible(`table.entrants`)); err != nil {
		t.Fatal(err)
	}
	ok, err = chromedp.Run(dora, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
	if err != nil || !ok {
		t.Errorf("the registrants page is wider than a phone (%v)", err)
	}
	apptest.Screenshot(t, dora, "race-registrants-phone")
	if err := chromedp.Do(dora, chromedp.Navigate(base+"/race/r/"+slug+"/admin/rehearsals"), chromedp.WaitVisible(`fieldset`)); err != nil {
		t.Fatal(err)
	}
	ok, err = chromedp.Run(dora, chromedp.Evaluate[bool](`[...document.querySelectorAll("fieldset")].every(f => getComputedStyle(f).borderTopStyle === "solid")
			&& document.documentElement.scrollWidth <= window.innerWidth`))
	if err != nil || !ok {
		t.Errorf("the rehearsal form's fieldsets are not styled, or the page is wider than a phone (%v)", err)
	}
}
