package race_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// The waiting list over HTTP, as runners walk it: the sold-out page offers
// it (signed out: sign in first), a runner joins and sees her place; when
// the holder of the last place gives it up, the sweep invites her and
// mails her; she gives it up (told so), and the next runner takes it and
// goes on to register.
func TestWaitingListThroughTheSite(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "1")
		ann := signedIn(t, m, "ann")
		_, page := ann.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)
		path, _ := ann.to(ann.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
		entry := strings.TrimSuffix(path, "/details")

		soldOut := "/race/r/" + slug + "/events/" + ev[1] + "/sold-out"
		visitor := &person{apptest.NewWeb(t, m), t}
		res, body := visitor.Get(soldOut)
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "Sign in to join the waiting list") {
			t.Errorf("sold-out page signed out: %.2000s", body)
		}
		res, body = visitor.Post("/race/r/"+slug+"/events/"+ev[1]+"/waitlist", nil)
		apptest.WantRedirect(t, res, body) // to the login page: nothing joined
		bea := signedIn(t, m, "bea")
		path, body = bea.to(bea.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
		if path != soldOut || !strings.Contains(body, "Join the waiting list") {
			t.Fatalf("bea after a sold-out start: %s %.2000s", path, body)
		}
		_, body = bea.to(bea.Post("/race/r/"+slug+"/events/"+ev[1]+"/waitlist", nil))
		if !strings.Contains(body, "You are on the waiting list") || !strings.Contains(body, "<strong>next</strong> in line") {
			t.Fatalf("after joining: %.2000s", body)
		}
		cy := signedIn(t, m, "cy")
		cy.to(cy.Post("/race/r/"+slug+"/events/"+ev[1]+"/waitlist", nil))
		// Ann gives her place up; at the next sweep it is bea's.
		ann.to(ann.Post(entry+"/leave", nil))
		sweepNow(t, m)
		// The sweep has committed the invitation when sweepNow returns, and
		// the page reads the list afresh: it shows at once (polled, with a
		// deadline, rather than assumed).
		invited := func(p *person) string {
			t.Helper()
			_, body := p.Get(soldOut)
			for deadline := time.Now().Add(25 * time.Second); !strings.Contains(body, "Take my place") && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
				_, body = p.Get(soldOut)
			}
			if !strings.Contains(body, "Take my place") {
				t.Fatalf("not invited: %.2000s", body)
			}
			return body
		}
		if body = invited(bea); !strings.Contains(body, "Give up this place") || strings.Contains(body, "Leave the waiting list") {
			t.Errorf("bea invited: the way out does not say she gives up a place: %.2000s", body)
		}
		awaitMail(t, m, "bea@example.com", "A place for you") // the invitation's
		// Bea gives the place up, and is told so; it goes to cy.
		if _, body = bea.to(bea.Post("/race/r/"+slug+"/events/"+ev[1]+"/waitlist", url.Values{"leave": {"1"}})); !strings.Contains(body, "You gave up the place") {
			t.Errorf("bea after giving up her place: %.2000s", body)
		}
		sweepNow(t, m)
		invited(cy)
		// Nobody else gets in meanwhile, nor takes cy's invitation.
		res, body = ann.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}})
		if apptest.WantRedirect(t, res, body) != soldOut {
			t.Errorf("ann while cy is invited: not sold out")
		}
		res, body = ann.Post("/race/r/"+slug+"/events/"+ev[1]+"/invitation", nil)
		apptest.WantStatus(t, res, body, http.StatusConflict)
		path, _ = cy.to(cy.Post("/race/r/"+slug+"/events/"+ev[1]+"/invitation", nil))
		if !strings.HasSuffix(path, "/details") {
			t.Errorf("cy taking her place: %s", path)
		}
	})
}

// TestBrowserWaitingList: on a phone, a runner who finds the event sold
// out joins its waiting list and sees her place in it.
func TestBrowserWaitingList(t *testing.T) {
	bea := apptest.Browser(t, 390, 844)
	m := apptest.One(t)
	dir := signedIn(t, m, "dora")
	slug := publishRace(t, dir, "1")
	ann := signedIn(t, m, "ann")
	_, page := ann.Get("/race/r/" + slug)
	ev := eventID.FindStringSubmatch(page)
	ann.to(ann.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
	signedIn(t, m, "bea")
	base := m.URL()
	err := chromedp.Do(bea,
		apptest.SignIn(base, "bea", "password-bea"),
		chromedp.Navigate(base+"/race/r/"+slug+"/events/"+ev[1]+"/sold-out"),
		chromedp.WaitVisible(`form[action$="/waitlist"] button`),
	)
	if err != nil {
		t.Fatal(err)
	}
	apptest.Screenshot(t, bea, "race-sold-out-phone")
	if err := chromedp.Do(bea,
		chromedp.Click(`form[action$="/waitlist"] button`),
		chromedp.WaitVisible(`.room-count`),
	); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(bea, chromedp.Text(`main`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "You are on the waiting list: next in line.") {
		t.Errorf("sold-out page after joining: %q", got)
	}
	apptest.Screenshot(t, bea, "race-waiting-list-phone")

	// A lottery event of the same race: its page, and entering it.
	now := time.Now().In(mustZone(t, "America/New_York"))
	res, body := dir.Post("/race/r/"+slug+"/admin/events", url.Values{"name": {"Marathon"}, "start_time": {"07:00"},
		"opens_date": {now.Add(-time.Hour).Format(time.DateOnly)}, "opens_time": {now.Add(-time.Hour).Format("15:04")},
		"closes_date": {now.AddDate(0, 1, 0).Format(time.DateOnly)}, "closes_time": {"12:00"}, "price": {"90"}, "cap": {"2"},
		"lottery": {"on"}, "draw_date": {now.AddDate(0, 0, 7).Format(time.DateOnly)}, "draw_time": {"12:00"}})
	apptest.WantRedirect(t, res, body)
	if err := chromedp.Do(bea,
		chromedp.Navigate(base+"/race/r/"+slug),
		chromedp.Click(`a[href$="/lottery"]`),
		chromedp.WaitVisible(`form[action$="/waitlist"] button`),
	); err != nil {
		t.Fatal(err)
	}
	apptest.Screenshot(t, bea, "race-lottery-phone")
	if err := chromedp.Do(bea,
		chromedp.Click(`form[action$="/waitlist"] button`),
		chromedp.WaitVisible(`.room-count`),
	); err != nil {
		t.Fatal(err)
	}
	if got, err := chromedp.Run(bea, chromedp.Text(`main`)); err != nil || !strings.Contains(got, "You are in the draw.") {
		t.Errorf("lottery page after entering: %q, %v", got, err)
	}
}

// A lottery event over HTTP: the race page offers its entry, a runner
// enters (once) and is told she is in the draw; nobody can claim a place
// before the draw; the director's form keeps the draw time.
func TestLotteryThroughTheSite(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "5")
		admin := "/race/r/" + slug + "/admin"
		now := time.Now().In(mustZone(t, "America/New_York"))
		form := url.Values{"name": {"Marathon"}, "start_time": {"07:00"},
			"opens_date": {now.Add(-time.Hour).Format(time.DateOnly)}, "opens_time": {now.Add(-time.Hour).Format("15:04")},
			"closes_date": {now.AddDate(0, 1, 0).Format(time.DateOnly)}, "closes_time": {"12:00"}, "price": {"90"}, "cap": {"2"},
			"lottery": {"on"}, "draw_date": {now.AddDate(0, 1, 1).Format(time.DateOnly)}, "draw_time": {"12:00"}}
		res, body := dir.Post(admin+"/events", form)
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "Draw the places after registration opens") {
			t.Errorf("a draw after the close: %.2000s", body)
		}
		form.Set("draw_date", now.AddDate(0, 0, 7).Format(time.DateOnly))
		_, body = dir.to(dir.Post(admin+"/events", form))
		if !strings.Contains(body, `name="lottery" value="on" checked`) {
			t.Errorf("events page does not show the lottery: %.3000s", body)
		}
		rita := signedIn(t, m, "rita")
		_, page := rita.Get("/race/r/" + slug)
		lot := regexp.MustCompile(`href="(/race/r/[^"]+/events/(\d+)/lottery)"`).FindStringSubmatch(page)
		if lot == nil || !strings.Contains(page, "Enter the lottery") {
			t.Fatalf("race page without the lottery: %.3000s", page)
		}
		res, body = rita.Post("/race/r/"+slug+"/register", url.Values{"event": {lot[2]}})
		if path := apptest.WantRedirect(t, res, body); !strings.Contains(path, "/events/"+lot[2]+"/") {
			t.Errorf("a claim before the draw went to %s", path)
		}
		_, body = rita.to(rita.Post("/race/r/"+slug+"/events/"+lot[2]+"/waitlist", nil))
		_, body = rita.to(rita.Post("/race/r/"+slug+"/events/"+lot[2]+"/waitlist", nil))
		if !strings.Contains(body, "You are in the draw.") {
			t.Errorf("lottery page after entering: %.2000s", body)
		}
	})
}
