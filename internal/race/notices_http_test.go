package race_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

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
