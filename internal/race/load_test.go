package race_test

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race"
)

// TestRushNeverOversells is the oversell test over HTTP, through
// the load engine's burst scenario as `tutti load` runs it: 2,000 signed-in
// runners for 500 places, all starting within 3 s, each through the whole
// wizard with its own connections. Exactly 500 register (one charge each,
// bibs 1 to 500), the other 1,500 end on the sold-out page, no request
// fails and no hold is left. On each database, and behind nginx in front of
// two instances in the cluster run.
func TestRushNeverOversells(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		const runners, places = 2000, 500
		ctx := context.Background()
		ids, res := rush(t, m, race.SeedSize{Runners: runners, Places: places}, "3s", "0s-30ms")
		t.Logf("status %v; requests %+v", res.Status, res.Requests)
		if res.Totals.Sessions != runners || res.Totals.SessionsFailed != runners-places ||
			res.Failed["register sold_out"] != runners-places || res.Totals.Errors != 0 {
			t.Fatalf("%d runners, %d failed (%v), %d request errors %v; want %d, %d sold out, no errors",
				res.Totals.Sessions, res.Totals.SessionsFailed, res.Failed, res.Totals.Errors, res.Errors, runners, runners-places)
		}
		d := m.DB
		var taken, confirmed, regs, live, bibs, minBib, maxBib, charges, matched int
		if err := db.Scan(d.QueryRow(ctx, `SELECT taken, confirmed FROM race_events WHERE id = ?`, ids.Event), &taken, &confirmed); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(*), count(DISTINCT bib), min(bib), max(bib) FROM race_registrations WHERE event_id = ?`, ids.Event),
			&regs, &bibs, &minBib, &maxBib); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM race_holds WHERE event_id = ? AND status NOT IN ('done', 'released')`, ids.Event), &live); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM pay_test_payments WHERE idem_key LIKE 'race-%'`), &charges); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(*) FROM race_registrations r JOIN pay_test_payments p ON p.id = r.payment_id
			AND p.idem_key = 'race-' || r.hold_id || '-0' AND p.amount = r.amount WHERE r.event_id = ?`, ids.Event), &matched); err != nil {
			t.Fatal(err)
		}
		if taken != places || confirmed != places || regs != places || live != 0 {
			t.Errorf("taken %d, confirmed %d, registrations %d, live holds %d; want %d, %d, %d, 0", taken, confirmed, regs, live, places, places, places)
		}
		if bibs != places || minBib != 1 || maxBib != places || charges != places || matched != places {
			t.Errorf("%d distinct bibs from %d to %d, %d charges, %d matching a registration; want bibs 1 to %d, %d charges each matched",
				bibs, minBib, maxBib, charges, matched, places, places)
		}
		if st := res.Sessions[0]; st.PerHour <= 0 || res.Generator == nil || res.Generator.PeakActive == 0 {
			t.Errorf("report: %+v, generator %+v; want an hourly rate and the generator's memory", st, res.Generator)
		}
	})
}

// rush seeds size on m and runs the race-burst scenario against it: every
// runner arrives within, thinking delay on each page.
func rush(t *testing.T, m *app.Main, size race.SeedSize, within, delay string) (*race.SeedIDs, *load.Result) {
	t.Helper()
	ctx := context.Background()
	seedFile := filepath.Join(t.TempDir(), "race.json")
	ids, err := race.Seed(ctx, m.DB, size, seedFile, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(m.URL())
	sc, err := race.LoadScenarios()["race-burst"](load.Options{Target: u, SeedFile: seedFile,
		Params: map[string]string{"runners": strconv.Itoa(size.Runners), "within": within, "delay": delay, "click": "0s-10ms"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := load.Run(ctx, sc, load.Config{Target: u, Phases: sc.Phases, Timeout: time.Minute, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return ids, res
}

// A rush on a race with extras: the runners' wizard takes the team,
// donation and store pages too, and every registration is charged its
// entry, its donation and its store lines, once; the shirts on the
// registrations are the shirts taken from stock.
func TestRushWithExtras(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		const runners, places = 300, 120
		ctx := context.Background()
		ids, res := rush(t, m, race.SeedSize{Runners: runners, Places: places, Extras: true}, "2s", "0s-20ms")
		var stores int64
		for _, st := range res.Requests {
			if st.Name == "store" {
				stores = st.Count
			}
		}
		if res.Totals.SessionsFailed != runners-places || res.Failed["register sold_out"] != runners-places || res.Totals.Errors != 0 ||
			stores != places {
			t.Fatalf("%d failed (%v), %d request errors %v, %d store pages sent; want %d sold out, no errors, %d store pages",
				res.Totals.SessionsFailed, res.Failed, res.Totals.Errors, res.Errors, stores, runners-places, places)
		}
		d := m.DB
		var regs, teamed, gave, wrong, shirts, taken int
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(*), count(team_id), count(CASE WHEN donation > 0 THEN 1 END),
			count(CASE WHEN amount <> 4500 + donation + coalesce((SELECT sum(hi.qty * hi.price) FROM race_hold_items hi
				WHERE hi.hold_id = r.hold_id), 0) THEN 1 END)
			FROM race_registrations r WHERE event_id = ?`, ids.Event), &regs, &teamed, &gave, &wrong); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(d.QueryRow(ctx, `SELECT coalesce(sum(qty), 0) FROM race_hold_items`), &shirts); err != nil {
			t.Fatal(err)
		}
		if err := db.Scan(d.QueryRow(ctx, `SELECT taken FROM race_items`), &taken); err != nil {
			t.Fatal(err)
		}
		if regs != places || teamed == 0 || teamed == places || gave == 0 || wrong != 0 || shirts == 0 || shirts != taken {
			t.Errorf("%d registrations, %d in teams, %d gave, %d charged wrongly, %d shirts on holds, %d taken from stock",
				regs, teamed, gave, wrong, shirts, taken)
		}
	})
}

// The seed's races run already: each past event has its results and, for
// the runners' accounts, registrations with the finishers' bibs, which a
// runner finds on their list and opens; the rush's race gives its next
// bibs after last year's.
func TestSeedPastRaces(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ctx := context.Background()
		ids, err := race.Seed(ctx, m.DB, race.SeedSize{Runners: 20, Places: 20, Results: 50, Races: 3}, "", nil, 1)
		if err != nil {
			t.Fatal(err)
		}
		var races, regs, results, dupBibs int
		if err := db.Scan(m.DB.QueryRow(ctx, `SELECT (SELECT count(*) FROM race_races WHERE published_at IS NOT NULL),
			(SELECT count(*) FROM race_registrations r JOIN race_holds h ON h.id = r.hold_id AND h.status = 'done'),
			(SELECT count(*) FROM race_results),
			(SELECT count(*) FROM (SELECT race_id, bib FROM race_registrations GROUP BY race_id, bib HAVING count(*) > 1) AS d)`),
			&races, &regs, &results, &dupBibs); err != nil {
			t.Fatal(err)
		}
		if races != 3 || regs != 60 || results != 150 || dupBibs != 0 {
			t.Fatalf("%d races, %d registrations with their holds, %d results, %d bibs twice; want 3, 60, 150, 0", races, regs, results, dupBibs)
		}
		runner := &person{apptest.NewWeb(t, m), t}
		u, _ := url.Parse(m.URL())
		runner.Client.Jar.SetCookies(u, []*http.Cookie{{Name: auth.CookieName, Value: ids.Sessions[0], Path: "/"}})
		res, body := runner.Get("/race/mine")
		apptest.WantStatus(t, res, body, http.StatusOK)
		links := regexp.MustCompile(`href="(/race/r/[^"]+/done)"`).FindAllStringSubmatch(body, -1)
		if len(links) != 3 || !strings.Contains(body, "Harbour Night Run") || !strings.Contains(body, "Old Town Half") {
			t.Fatalf("the first runner's registrations: %d links, %.2000s", len(links), body)
		}
		for _, l := range links {
			res, body = runner.Get(l[1])
			apptest.WantStatus(t, res, body, http.StatusOK)
			if !strings.Contains(body, "Bib <strong>") {
				t.Errorf("%s: %.1000s", l[1], body)
			}
		}
		// The rush's registrations take bibs after last year's.
		var next, top int
		if err := db.Scan(m.DB.QueryRow(ctx, `SELECT r.next_bib, (SELECT max(bib) FROM race_registrations g WHERE g.race_id = r.id)
			FROM race_races r WHERE r.slug = ?`, ids.Race), &next, &top); err != nil || next <= top || top == 0 {
			t.Errorf("the rush's race: next bib %d after last year's highest %d (%v); want it past", next, top, err)
		}
	})
}
