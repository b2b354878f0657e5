package race_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// A director removes a co-director (who then cannot direct the race); the
// creator stays; only directors may.
func TestRemoveCoDirector(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		cody := signedIn(t, m, "cody")
		rita := signedIn(t, m, "rita")
		slug := publishRace(t, dir, "5")
		admin := "/race/r/" + slug + "/admin"
		dir.to(dir.Post(admin+"/directors", url.Values{"username": {"cody"}}))
		res, body := cody.Get(admin)
		apptest.WantStatus(t, res, body, http.StatusOK)
		if !strings.Contains(body, `action="`+admin+`/directors/remove"`) {
			t.Errorf("no remove button: %.3000s", body)
		}
		res, body = rita.Post(admin+"/directors/remove", url.Values{"username": {"cody"}})
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = cody.Post(admin+"/directors/remove", url.Values{"username": {"dora"}})
		apptest.WantStatus(t, res, body, http.StatusConflict)
		if !strings.Contains(body, "creator stays a director") {
			t.Errorf("removing the creator: %.3000s", body)
		}
		_, body = dir.to(dir.Post(admin+"/directors/remove", url.Values{"username": {"cody"}}))
		if !strings.Contains(body, "Co-director removed.") {
			t.Errorf("after removing: %.3000s", body)
		}
		res, body = cody.Get(admin)
		apptest.WantStatus(t, res, body, http.StatusForbidden)
	})
}

// A published race nobody has registered for can be unpublished (runners
// no longer see it); once a runner has registered it cannot.
func TestUnpublish(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "5")
		admin := "/race/r/" + slug + "/admin"
		_, body := dir.to(dir.Post(admin+"/unpublish", nil))
		if !strings.Contains(body, "Unpublished") || !strings.Contains(body, "Publish the race") {
			t.Errorf("after unpublishing: %.3000s", body)
		}
		rita := signedIn(t, m, "rita")
		res, body := rita.Get("/race/r/" + slug)
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		dir.to(dir.Post(admin+"/publish", nil))
		entry := startEntry(t, rita, slug)
		rita.to(rita.Post(entry+"/waiver", url.Values{"accept": {"yes"}}))
		res, body = rita.Post(entry+"/pay", url.Values{"card": {"4242 4242 4242 4242"}})
		apptest.WantRedirect(t, res, body)
		res, body = dir.Post(admin+"/unpublish", nil)
		apptest.WantStatus(t, res, body, http.StatusConflict)
		if !strings.Contains(body, "Runners have registered") {
			t.Errorf("unpublishing with a runner in: %.3000s", body)
		}
		res, body = rita.Get("/race/r/" + slug)
		apptest.WantStatus(t, res, body, http.StatusOK)
	})
}

// Deleting a draft asks first on its own page, saying what goes and that
// it cannot be undone; then the race is gone. A published race is not
// deleted.
func TestDeleteDraft(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		published := publishRace(t, dir, "5")
		res, body := dir.Post("/race/r/"+published+"/admin/delete", nil)
		apptest.WantStatus(t, res, body, http.StatusConflict)
		res, body = dir.Post("/race/races", url.Values{"name": {"Draft Dash"}, "location": {"Park"},
			"date": {time.Now().AddDate(0, 2, 0).Format(time.DateOnly)}, "tz": {"UTC"}, "currency": {"usd"}})
		path := apptest.WantRedirect(t, res, body)
		admin := strings.TrimSuffix(path, "/events")
		dir.to(dir.Post(admin+"/events", eventForm(t, "5K", "10", "20")))
		_, review := dir.Get(admin)
		if !strings.Contains(review, `href="`+admin+`/delete"`) {
			t.Errorf("the draft's review has no delete link: %.3000s", review)
		}
		res, body = dir.Get(admin + "/delete")
		apptest.WantStatus(t, res, body, http.StatusOK)
		for _, want := range []string{"Delete Draft Dash?", "1 event", "It cannot be undone.", `action="` + admin + `/delete"`} {
			if !strings.Contains(body, want) {
				t.Errorf("the confirmation lacks %q: %.3000s", want, body)
			}
		}
		rita := signedIn(t, m, "rita")
		res, body = rita.Post(admin+"/delete", nil) // a draft is hidden from others
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		res, body = dir.Post(admin+"/delete", nil)
		if apptest.WantRedirect(t, res, body) != "/race/mine" {
			t.Errorf("after deleting: %s", res.Header.Get("Location"))
		}
		res, body = dir.Get(admin)
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		_, mine := dir.Get("/race/mine")
		if strings.Contains(mine, "Draft Dash") || !strings.Contains(mine, "Harbour Run") {
			t.Errorf("my races after deleting the draft: %.3000s", mine)
		}
	})
}
