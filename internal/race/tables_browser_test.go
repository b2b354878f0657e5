package race_test

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/race"
)

// tableFit is how a page's tables sit in a window (fitJS).
type tableFit struct {
	Width  int      `json:"width"`  // the document's scroll width
	Inner  int      `json:"inner"`  // the window's width
	Tables int      `json:"tables"` // tables on the page
	Scroll int      `json:"scroll"` // of them, wider than their box (it scrolls)
	Bad    []string `json:"bad"`    // tables whose last column cannot be reached
}

// fitJS measures the page: its width, and for each table whether scrolling
// its box (the nearest ancestor that scrolls sideways) to the end brings
// the last column of its first and last rows into the window.
const fitJS = `(() => {
	const out = {width: document.documentElement.scrollWidth, inner: window.innerWidth, tables: 0, scroll: 0, bad: []};
	for (const t of document.querySelectorAll("main table")) {
		out.tables++;
		let box = t.parentElement;
		while (box && box !== document.body && !/auto|scroll/.test(getComputedStyle(box).overflowX)) box = box.parentElement;
		if (box === document.body) box = null;
		if (box && box.scrollWidth > box.clientWidth) out.scroll++;
		if (box) box.scrollLeft = box.scrollWidth;
		const rows = t.querySelectorAll("tr");
		for (const tr of [rows[0], rows[rows.length - 1]]) {
			const r = tr.lastElementChild.getBoundingClientRect();
			if (r.right > window.innerWidth + 0.5 || r.left < -0.5) out.bad.push((t.className || "table") + ": " + tr.lastElementChild.textContent.trim().slice(0, 30));
		}
		if (box) box.scrollLeft = 0;
	}
	return out;
})()`

// Every director's page with a table, with forty registrants (one with a
// long name), at a phone's width and a desktop's: the page is never wider
// than the window, and each table's last column is reached by scrolling
// the table's own box. On the phone the registrants' table is wider than
// the screen: it is its box that scrolls, not the page.
func TestBrowserTablesFitTheScreen(t *testing.T) {
	phone := apptest.Browser(t, 390, 844)
	desk := apptest.Browser(t, 1200, 900)
	m := apptest.One(t)
	ctx := context.Background()
	ids, err := race.Seed(ctx, m.DB, race.SeedSize{Runners: 40, Places: 40, Results: 40, Races: 1}, "", nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var director string
	if err := db.Scan(m.DB.QueryRow(ctx, `SELECT u.username FROM users u JOIN race_races r ON r.owner_id = u.id WHERE r.slug = ?`, ids.Race), &director); err != nil {
		t.Fatal(err)
	}
	if _, err := m.DB.Exec(ctx, `UPDATE race_registrations SET first_name = 'Maximiliane-Josephine', last_name = 'Wolfeschlegelsteinhausen-Bergerdorff'
		WHERE id = (SELECT min(id) FROM race_registrations WHERE event_id = ?)`, ids.ResultsEvent); err != nil {
		t.Fatal(err)
	}
	// A code, for the codes' table.
	d := &person{apptest.NewWeb(t, m), t}
	res, body := d.Post("/account/login", url.Values{"login": {director}, "password": {race.SeedPassword}})
	apptest.WantRedirect(t, res, body)
	admin := "/race/r/" + ids.Race + "/admin"
	res, body = d.Post(admin+"/codes", url.Values{"code": {"CLUB-MEMBERS-2027"}, "percent": {"15"}, "max_uses": {"100"}})
	apptest.WantRedirect(t, res, body)
	ev := fmt.Sprint(ids.ResultsEvent)
	pages := []struct{ name, path string }{
		{"review", admin},
		{"registrants", admin + "/events/" + ev + "/entrants"},
		{"checkin", admin + "/events/" + ev + "/checkin"},
		{"results-admin", admin + "/events/" + ev + "/results"},
		{"codes", admin + "/codes"},
		{"results", "/race/r/" + ids.Race + "/results/" + ev},
		{"results-not-yet", "/race/r/" + ids.Race + "/results/" + fmt.Sprint(ids.Event)}, // no table: the results are to come
	}
	for _, w := range []struct {
		ctx   context.Context
		width string
	}{{phone, "390"}, {desk, "1200"}} {
		if err := chromedp.Do(w.ctx, apptest.SignIn(m.URL(), director, race.SeedPassword)); err != nil {
			t.Fatal(err)
		}
		for _, p := range pages {
			if err := chromedp.Do(w.ctx, chromedp.Navigate(m.URL()+p.path), chromedp.WaitVisible(`main`)); err != nil {
				t.Fatalf("%s: %v", p.path, err)
			}
			fit, err := chromedp.Run(w.ctx, chromedp.Evaluate[tableFit](fitJS))
			if err != nil {
				t.Fatal(err)
			}
			apptest.Screenshot(t, w.ctx, "race-tables-"+p.name+"-"+w.width)
			if fit.Width > fit.Inner || len(fit.Bad) > 0 {
				t.Errorf("%s at %s px: the page is %d px wide in a window of %d; last columns out of reach: %v",
					p.name, w.width, fit.Width, fit.Inner, fit.Bad)
			}
			if p.name != "checkin" && p.name != "results-not-yet" && fit.Tables == 0 {
				t.Errorf("%s at %s px: no table", p.name, w.width)
			}
			if p.name == "registrants" && w.width == "390" && fit.Scroll == 0 {
				t.Errorf("the registrants at 390 px: the table fits its box (%+v): the test no longer shows its box scrolls", fit)
			}
		}
	}
}
