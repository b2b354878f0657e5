package race_test

import (
	"context"
	"math/rand/v2"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/race/results"
)

// The results scenario runs without an error against seeded results: its
// pages, searches and suggestions all answer.
func TestResultsScenario(t *testing.T) {
	m := apptest.One(t)
	ctx := context.Background()
	slug := publishRace(t, signedIn(t, m, "dora"), "50")
	var raceID, eventID int64
	if err := db.Scan(m.DB.QueryRow(ctx, `SELECT r.id, e.id FROM race_races r JOIN race_events e ON e.race_id = r.id WHERE r.slug = ?`, slug),
		&raceID, &eventID); err != nil {
		t.Fatal(err)
	}
	if err := results.Seed(ctx, m.DB, raceID, eventID, 1000, rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(m.URL())
	sc, err := race.LoadScenarios()["race-results"](load.Options{Target: u,
		Params: map[string]string{"race": slug, "event": strconv.FormatInt(eventID, 10)}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := load.Run(ctx, sc, load.Config{Target: u, Phases: []load.Phase{{Duration: 2 * time.Second, Rate: 200}},
		Timeout: 10 * time.Second, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int64{}
	for _, r := range res.Requests {
		names[r.Name] = r.Count
	}
	if res.Totals.Errors != 0 || names["results_page"] == 0 || names["results_search"] == 0 || names["results_names"] == 0 {
		t.Errorf("requests %v, errors %v; want all three kinds, no errors", names, res.Errors)
	}
	if _, err := race.LoadScenarios()["race-results"](load.Options{Target: u, Params: map[string]string{"race": slug}}); err == nil {
		t.Error("no event given: no error")
	}
}
