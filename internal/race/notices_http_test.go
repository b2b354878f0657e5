package race_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// A director's "Cancel and refund" asks first on a page that says what
// happens (the refund's amount); only the POST cancels; the runner is
// mailed and sees the cancellation and then the refund on her
// registrations page. Another race's or no registration is not found; a
// cancelled one is told so.
func TestCancelAsksFirstAndTellsTheRunner(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "5")
		ann := signedIn(t, m, "ann")
		_, page := ann.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		register(t, ann, slug, ev, "Ann")
		_, body := dir.Get("/race/r/" + slug + "/admin/events/" + ev + "/entrants")
		rid := regexp.MustCompile(`href="(/race/r/[^"]+/admin/registrations/(\d+)/cancel)"`).FindStringSubmatch(body)
		if rid == nil {
			t.Fatalf("no link to the cancellation page on the entrants list: %.2000s", body)
		}
		res, body := dir.Get(rid[1])
		apptest.WantStatus(t, res, body, http.StatusOK)
		for _, want := range []string{"Cancel Ann Runner", "25.50 USD", "refunded in full", "cannot be undone", `method="post"`} {
			if !strings.Contains(body, want) {
				t.Errorf("confirmation page lacks %q: %.2000s", want, body)
			}
		}
		// Looking changed nothing.
		if _, mine := ann.Get("/race/mine"); !strings.Contains(mine, "confirmed") || strings.Contains(mine, "Registration cancelled") {
			t.Errorf("ann's page after the director only looked: %.2000s", mine)
		}
		// Not this race's, or none: 404, on the page and the POST.
		other := signedIn(t, m, "olga")
		res, body = other.Post("/race/races", url.Values{"name": {"Other Run"}, "location": {"Hill"}, "date": {"2030-05-05"}, "tz": {"UTC"}, "currency": {"eur"}})
		otherSlug := strings.TrimSuffix(strings.TrimPrefix(apptest.WantRedirect(t, res, body), "/race/r/"), "/admin/events")
		for _, p := range []string{"/race/r/" + otherSlug + "/admin/registrations/" + rid[2] + "/cancel", "/race/r/" + slug + "/admin/registrations/999999/cancel"} {
			who := dir
			if strings.Contains(p, otherSlug) {
				who = other
			}
			res, body = who.Get(p)
			apptest.WantStatus(t, res, body, http.StatusNotFound)
			res, body = who.Post(p, nil)
			apptest.WantStatus(t, res, body, http.StatusNotFound)
		}
		postOK(t, dir, rid[1], nil)
		res, body = dir.Get(rid[1])
		apptest.WantStatus(t, res, body, http.StatusConflict)
		// The runner is told: mails, and her page.
		awaitMail(t, m, "ann@example.com", "Registration cancelled")
		awaitMail(t, m, "ann@example.com", "Refund done")
		_, mine := ann.Get("/race/mine")
		for _, want := range []string{"Registration cancelled: Harbour Run · 5K", "25.50 USD is refunded in full", "Refund done: Harbour Run · 5K", "cancelled"} {
			if !strings.Contains(mine, want) {
				t.Errorf("ann's registrations page lacks %q: %.3000s", want, mine)
			}
		}
		if _, mine := dir.Get("/race/mine"); strings.Contains(mine, "Registration cancelled") {
			t.Errorf("the director's page shows ann's notices")
		}
	})
}

// "Give up my place" asks first; the POST releases the place and says so.
func TestGiveUpMyPlaceAsksFirst(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		slug := publishRace(t, signedIn(t, m, "dora"), "1")
		ann := signedIn(t, m, "ann")
		_, page := ann.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)[1]
		path, body := ann.to(ann.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}}))
		entry := strings.TrimSuffix(path, "/details")
		if !strings.Contains(body, `href="`+entry+`/leave"`) {
			t.Errorf("no link to give the place up: %.2000s", body)
		}
		res, body := ann.Get(entry + "/leave")
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, "released at once") || !strings.Contains(body, `method="post"`) {
			t.Errorf("give-up page: %.2000s", body)
		}
		// Looking kept the place: the only one is still ann's.
		bea := signedIn(t, m, "bea")
		res, body = bea.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}})
		if p := apptest.WantRedirect(t, res, body); !strings.HasSuffix(p, "/sold-out") {
			t.Errorf("bea while ann only looked at the give-up page: %s; want sold out", p)
		}
		path, body = ann.to(ann.Post(entry+"/leave", nil))
		if path != "/race/mine" || !strings.Contains(body, "Your place was released") {
			t.Errorf("after giving up: %s %.1500s", path, body)
		}
		res, body = bea.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}})
		if p := apptest.WantRedirect(t, res, body); !strings.HasSuffix(p, "/details") {
			t.Errorf("bea after ann gave up: %s; want the place", p)
		}
	})
}

// TestBrowserCancelAndNotices: on a wide screen and on a phone, the
// director follows "Cancel and refund…" to the page that asks first,
// confirms it, and the runner's registrations page shows what she was
// told; a runner's "Give up my place" asks first too.
func TestBrowserCancelAndNotices(t *testing.T) {
	for _, width := range []int{1200, 390} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			br := apptest.Browser(t, width, 900)
			m := apptest.One(t)
			signedIn(t, m, "dora")
			dina := signedIn(t, m, "dina")
			slug := publishRace(t, dina, "5")
			ann := signedIn(t, m, "ann")
			_, page := ann.Get("/race/r/" + slug)
			ev := eventID.FindStringSubmatch(page)[1]
			register(t, ann, slug, ev, "Ann")
			base, w := m.URL(), strconv.Itoa(width)
			if err := chromedp.Do(br,
				apptest.SignIn(base, "dina", "password-dina"),
				chromedp.Navigate(base+"/race/r/"+slug+"/admin/events/"+ev+"/entrants"),
				chromedp.Click(`a[href$="/cancel"]`),
				chromedp.WaitVisible(`form[action$="/cancel"] button`),
			); err != nil {
				t.Fatal(err)
			}
			apptest.Screenshot(t, br, "race-cancel-confirm-"+w)
			if got, err := chromedp.Run(br, chromedp.Text(`main`)); err != nil || !strings.Contains(got, "Cancel and refund 25.50 USD") {
				t.Errorf("confirmation page: %q, %v", got, err)
			}
			_, list := dina.Get("/race/r/" + slug + "/admin/events/" + ev + "/entrants")
			action := regexp.MustCompile(`href="(/race/r/[^"]+/cancel)"`).FindStringSubmatch(list)
			if action == nil {
				t.Fatalf("entrants list: %.1500s", list)
			}
			postOK(t, dina, action[1], nil) // the form's POST, as the button sends it (TestCancelAsksFirstAndTellsTheRunner)
			awaitMail(t, m, "ann@example.com", "Refund done")
			br = apptest.Browser(t, width, 900) // ann's own browser
			if err := chromedp.Do(br,
				apptest.SignIn(base, "ann", "password-ann"),
				chromedp.Navigate(base+"/race/mine"),
				chromedp.WaitVisible(`#notices`),
			); err != nil {
				t.Fatal(err)
			}
			apptest.Screenshot(t, br, "race-mine-notices-"+w)
			if got, err := chromedp.Run(br, chromedp.Text(`.notices`)); err != nil || !strings.Contains(got, "Registration cancelled: Harbour Run · 5K") ||
				!strings.Contains(got, "Refund done") {
				t.Errorf("ann's notices: %q, %v", got, err)
			}
			// Giving up a held place: asked first.
			if err := chromedp.Do(br,
				chromedp.Navigate(base+"/race/r/"+slug),
			); err != nil {
				t.Fatal(err)
			}
			path, _ := ann.to(ann.Post("/race/r/"+slug+"/register", url.Values{"event": {ev}}))
			if err := chromedp.Do(br,
				chromedp.Navigate(base+path),
				chromedp.Click(`a[href$="/leave"]`),
				chromedp.WaitVisible(`form[action$="/leave"] button`),
			); err != nil {
				t.Fatal(err)
			}
			apptest.Screenshot(t, br, "race-leave-confirm-"+w)
			postOK(t, ann, strings.TrimSuffix(path, "/details")+"/leave", nil)
			if err := chromedp.Do(br,
				chromedp.Navigate(base+"/race/mine?released=1"),
				chromedp.WaitVisible(`.flash.ok`),
			); err != nil {
				t.Fatal(err)
			}
			apptest.Screenshot(t, br, "race-mine-released-"+w)
		})
	}
}
