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

// A director's edits of a published race show on the very next request for
// the race page, which visitors get from the cache (and, in the cluster run,
// from either instance behind nginx): the name, an event's price and places,
// a new event. Places left may be 5 s old there; a director's edit may not.
func TestEditShowsOnTheNextRequest(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "edna")
		slug := publishRace(t, dir, "50")
		visitor := &person{apptest.NewWeb(t, m), t}
		racePage := func() string {
			t.Helper()
			res, page := visitor.Get("/race/r/" + slug)
			apptest.WantStatus(t, res, page, http.StatusOK)
			return page
		}
		// Fill the cache on every instance first (nginx alternates).
		for range 4 {
			if page := racePage(); !strings.Contains(page, "Harbour Run") || !strings.Contains(page, "25.50 USD") {
				t.Fatalf("race page before the edits: %.1500s", page)
			}
		}
		ev := eventID.FindStringSubmatch(racePage())
		if ev == nil {
			t.Fatal("no event on the race page")
		}

		admin := "/race/r/" + slug + "/admin"
		res, body := dir.Post(admin+"/basics", url.Values{"name": {"Harbour Night Run"}, "location": {"Old Harbour"},
			"date": {time.Now().AddDate(0, 2, 0).Format(time.DateOnly)}, "tz": {"America/New_York"}, "currency": {"usd"}})
		apptest.WantRedirect(t, res, body)
		for i := range 4 {
			if page := racePage(); !strings.Contains(page, "Harbour Night Run") {
				t.Fatalf("request %d after renaming: %.1500s", i+1, page)
			}
		}

		res, body = dir.Post(admin+"/events/"+ev[1], eventForm(t, "5K", "31.00", "80"))
		apptest.WantRedirect(t, res, body)
		for i := range 4 {
			page := racePage()
			if !strings.Contains(page, "31.00 USD") || strings.Contains(page, "25.50 USD") || !strings.Contains(page, "80</strong> of 80 places left") {
				t.Fatalf("request %d after the price and places changed: %.2000s", i+1, page)
			}
		}

		res, body = dir.Post(admin+"/events", eventForm(t, "Half marathon", "60.00", "80"))
		apptest.WantRedirect(t, res, body)
		for i := range 4 {
			if page := racePage(); !strings.Contains(page, "Half marathon") || !strings.Contains(page, "60.00 USD") {
				t.Fatalf("request %d after adding an event: %.2000s", i+1, page)
			}
		}
	})
}
