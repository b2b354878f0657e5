package results

import (
	"cmp"
	"context"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// Names for made-up results (Seed, the results load scenario),
// accented ones among them so that search's folding is exercised.
var (
	seedFirstF = []string{"Anna", "Zoë", "Chloé", "Renée", "Inés", "Ana", "Maria", "Marta", "Mia", "Olivia", "Emma", "Léa",
		"Ingrid", "Siobhán", "Aoife", "Yuki", "Priya", "Fatima", "Sofia", "Camille", "Elif", "Nora", "Agnieszka", "Ágnes", "Amara", "Pilar"}
	seedFirstM = []string{"José", "Łukasz", "Søren", "Björn", "François", "Mark", "Martin", "Matteo", "Liam", "Noah", "Lucas",
		"Jürgen", "Dmitri", "Kenji", "Arjun", "Omar", "Chen", "Wei", "Mateo", "Mehmet", "Oskar", "Zoltán", "Kwame", "Tomás"}
	seedLast = []string{"Smith", "Müller", "García", "Núñez", "Kowalski", "Øberg", "Dubois", "Rossi", "Johansson", "O'Brien",
		"Nguyen", "Kim", "Patel", "Silva", "Fernández", "Novák", "Horváth", "Jensen", "Schmidt", "Brown", "Martin", "Martínez",
		"Moreau", "Lefèvre", "Yılmaz", "Ivanov", "Tanaka", "Wang", "Mensah", "Okafor", "Murphy", "Walsh", "Costa", "Sánchez",
		"Eriksson", "Lindqvist", "Bauer", "Weiß", "Dvořák", "Popescu"}
	seedCities = []string{"Berlin", "Kraków", "Lyon", "Porto", "Malmö", "Dublin", "Boston", "Osaka", "Accra", "Zürich", ""}
)

// Seed replaces event's results (event of race raceID) with n
// made-up finishers, bibs 1 to n in a random order, times from 2 to 6
// hours, and publishes them: the data of the results pages' load tests.
// Rows go in with db.CopyFrom (COPY on PostgreSQL), in list order. It
// raises the race's version in the database: seed before serving (a
// server on SQLite keeps the version it has read in memory).
func Seed(ctx context.Context, d *db.DB, raceID, eventID int64, n int, rng *mrand.Rand) error {
	rs, err := MadeUp(n, rng)
	if err != nil {
		return err
	}
	var owner int64
	if err := db.Scan(d.QueryRow(ctx, `SELECT race_id FROM race_events WHERE id = ?`, eventID), &owner); err != nil {
		return fmt.Errorf("results: seed: event %d: %w", eventID, err)
	}
	if owner != raceID {
		return fmt.Errorf("results: seed: event %d is not race %d's", eventID, raceID)
	}
	return SeedRows(ctx, d, raceID, eventID, rs)
}

// MadeUp is n made-up finishers, bibs 1 to n in a random order, in
// finishing order and ranked; n is 0 to MaxRows.
func MadeUp(n int, rng *mrand.Rand) ([]Result, error) {
	if n < 0 || n > MaxRows {
		return nil, fmt.Errorf("results: seed: n = %d; want 0 to %d", n, MaxRows)
	}
	rs := make([]Result, n)
	bibs := rng.Perm(n)
	for i := range rs {
		first, g := seedFirstF, "F"
		if rng.IntN(2) == 0 {
			first, g = seedFirstM, "M"
		}
		rs[i] = Result{Bib: bibs[i] + 1, Name: first[rng.IntN(len(first))] + " " + seedLast[rng.IntN(len(seedLast))],
			Gender: g, Age: 18 + rng.IntN(58), City: seedCities[rng.IntN(len(seedCities))],
			TimeMS: int64(2*time.Hour/time.Millisecond) + rng.Int64N(int64(4*time.Hour/time.Millisecond))}
	}
	slices.SortStableFunc(rs, func(a, b Result) int { return cmp.Compare(a.TimeMS, b.TimeMS) })
	rank(rs)
	return rs, nil
}

// SeedRows replaces event's results with rs and publishes them, rows
// written with db.CopyFrom (COPY on PostgreSQL), and raises race raceID's
// version in the database.
func SeedRows(ctx context.Context, d *db.DB, raceID, eventID int64, rs []Result) error {
	n := len(rs)
	rows := make([][]any, len(rs))
	for i, r := range rs {
		rows[i] = resultRow(eventID, r)
	}
	if _, err := d.Exec(ctx, `DELETE FROM race_results WHERE event_id = ?`, eventID); err != nil {
		return fmt.Errorf("results: seed: %w", err)
	}
	if err := d.CopyFrom(ctx, "race_results", resultCols, rows); err != nil {
		return fmt.Errorf("results: seed: %w", err)
	}
	now := time.Now().UnixMilli()
	return d.WithTx(ctx, func(tx *db.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE race_events SET results_count = ?, results_published_at = ? WHERE id = ?`, n, now, eventID); err != nil {
			return err
		}
		if err := optimize(ctx, tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE race_races SET version = version + 1, updated_at = ? WHERE id = ?`, now, raceID)
		return err
	})
}

// MadeUpName is the i-th of the names made-up results take (the lists
// cycled), for files written by tests.
func MadeUpName(i int) string {
	return seedFirstM[i%len(seedFirstM)] + " " + seedLast[i%len(seedLast)]
}
