package race_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// Through the site: a director who directs a race alone is told why the
// account cannot go yet; a runner holding the last place deletes hers,
// and the next runner gets it at once.
func TestAccountDeletionThroughTheSite(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "1")
		res, body := dir.Post("/account/delete", url.Values{"password": {"password-dora"}})
		apptest.WantStatus(t, res, body, http.StatusConflict)
		if !strings.Contains(body, "You direct &#34;Harbour Run&#34; alone") && !strings.Contains(body, "You direct &quot;Harbour Run&quot; alone") {
			t.Errorf("the lone director's deletion: %.2000s", body)
		}
		ann := signedIn(t, m, "ann")
		_, page := ann.Get("/race/r/" + slug)
		ev := eventID.FindStringSubmatch(page)
		ann.to(ann.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}}))
		bea := signedIn(t, m, "bea")
		res, body = bea.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}})
		if to := apptest.WantRedirect(t, res, body); !strings.HasSuffix(to, "/sold-out") {
			t.Fatalf("bea while ann holds the place: %s", to)
		}
		res, body = ann.Post("/account/delete", url.Values{"password": {"password-ann"}})
		apptest.WantRedirect(t, res, body)
		res, body = bea.Post("/race/r/"+slug+"/register", url.Values{"event": {ev[1]}})
		if to := apptest.WantRedirect(t, res, body); !strings.HasSuffix(to, "/details") {
			t.Errorf("bea after ann's account went: %s", to)
		}
	})
}
