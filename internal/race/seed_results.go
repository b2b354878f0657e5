package race

import (
	"cmp"
	"context"
	"crypto/rand"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
)

// Names for made-up results (SeedResults, the results load scenario),
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

// SeedResults replaces event's results (event of race raceID) with n
// made-up finishers, bibs 1 to n in a random order, times from 2 to 6
// hours, and publishes them: the data of the results pages' load tests.
// Rows go in with db.CopyFrom (COPY on PostgreSQL), in list order. It
// raises the race's version in the database: seed before serving (a
// server on SQLite keeps the version it has read in memory).
func SeedResults(ctx context.Context, d *db.DB, raceID, eventID int64, n int, rng *mrand.Rand) error {
	rs, err := madeUp(n, rng)
	if err != nil {
		return err
	}
	var owner int64
	if err := db.Scan(d.QueryRow(ctx, `SELECT race_id FROM race_events WHERE id = ?`, eventID), &owner); err != nil {
		return fmt.Errorf("race: seed results: event %d: %w", eventID, err)
	}
	if owner != raceID {
		return fmt.Errorf("race: seed results: event %d is not race %d's", eventID, raceID)
	}
	return storeResults(ctx, d, raceID, eventID, rs)
}

// madeUp is n made-up finishers, bibs 1 to n in a random order, in
// finishing order and ranked; n is 0 to MaxResultRows.
func madeUp(n int, rng *mrand.Rand) ([]Result, error) {
	if n < 0 || n > MaxResultRows {
		return nil, fmt.Errorf("race: seed results: n = %d; want 0 to %d", n, MaxResultRows)
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

// storeResults replaces event's results with rs and publishes them.
func storeResults(ctx context.Context, d *db.DB, raceID, eventID int64, rs []Result) error {
	n := len(rs)
	rows := make([][]any, len(rs))
	for i, r := range rs {
		rows[i] = resultRow(eventID, r)
	}
	if _, err := d.Exec(ctx, `DELETE FROM race_results WHERE event_id = ?`, eventID); err != nil {
		return fmt.Errorf("race: seed results: %w", err)
	}
	if err := d.CopyFrom(ctx, "race_results", resultCols, rows); err != nil {
		return fmt.Errorf("race: seed results: %w", err)
	}
	now := time.Now().UnixMilli()
	return d.WithTx(ctx, func(tx *db.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE race_events SET results_count = ?, results_published_at = ? WHERE id = ?`, n, now, eventID); err != nil {
			return err
		}
		if err := optimizeResults(ctx, tx); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE race_races SET version = version + 1, updated_at = ? WHERE id = ?`, now, raceID)
		return err
	})
}

// seedRegistrations stores a confirmed registration, and its hold done, for
// each of rs's finishers, as many as there are users (one each), with the
// finisher's bib and name, paid amount each: last year's entrants, as the
// writer would have stored them. The race's next bib moves past the
// highest.
func seedRegistrations(ctx context.Context, d *db.DB, raceID, eventID int64, users []int64, rs []Result, amount int64, at time.Time) error {
	n := min(len(users), len(rs))
	if n == 0 {
		return nil
	}
	holds, regs := make([][]any, n), make([][]any, n)
	top := 0
	for i, r := range rs[:n] {
		first, last, _ := strings.Cut(r.Name, " ")
		id, email, birth := rand.Text(), fmt.Sprintf("runner%d@seed.tutti.test", users[i]), fmt.Sprintf("%d-06-15", at.Year()-r.Age)
		payment := "seed-" + id
		holds[i] = []any{id, eventID, raceID, users[i], string(checkout.Done), at.UnixMilli(), first, last, email, birth, r.Gender, r.City,
			seedEmergency, stepWaiver, at.UnixMilli(), amount, payment, at.UnixMilli(), at.UnixMilli()}
		regs[i] = []any{id, raceID, eventID, users[i], r.Bib, first, last, NameKey(first + " " + last), email, birth,
			r.Gender, r.City, seedEmergency, amount, payment, "confirmed", at.UnixMilli()}
		top = max(top, r.Bib)
	}
	if err := d.CopyFrom(ctx, "race_holds", []string{"id", "event_id", "race_id", "user_id", "status", "expires_at", "first_name",
		"last_name", "email", "birth_date", "gender", "city", "emergency", "step", "waiver_at", "amount", "payment_id", "paid_at",
		"created_at"}, holds); err != nil {
		return fmt.Errorf("race: seed holds: %w", err)
	}
	if err := d.CopyFrom(ctx, "race_registrations", []string{"hold_id", "race_id", "event_id", "user_id", "bib", "first_name",
		"last_name", "name_key", "email", "birth_date", "gender", "city", "emergency", "amount", "payment_id", "status",
		"created_at"}, regs); err != nil {
		return fmt.Errorf("race: seed registrations: %w", err)
	}
	return d.WithTx(ctx, func(tx *db.Tx) error {
		if _, err := tx.Exec(ctx, `UPDATE race_events SET confirmed = confirmed + ?, taken = taken + ? WHERE id = ?`, n, n, eventID); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE race_races SET next_bib = CASE WHEN next_bib > ? THEN next_bib ELSE ? END,
			version = version + 1 WHERE id = ?`, top, top+1, raceID)
		return err
	})
}

const seedEmergency = "A friend, 555 0100"
