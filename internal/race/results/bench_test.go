package results_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/race/results"
)

// BenchmarkResultsSearch times the search box's query (Store.Search,
// eight suggestions) and a list page over two events of 50,000 results each
// (the second searched), on SQLite and, with TUTTI_TEST_POSTGRES, on
// PostgreSQL: a common start of a name, a rarer one, one nobody has, one
// only a few late finishers have, two words, and a deep page.
//
//	go test -run '^$' -bench ResultsSearch ./internal/race/results/
func BenchmarkResultsSearch(b *testing.B) {
	const n = 50_000
	ctx := context.Background()
	for name, u := range dbtest.URLs(b) {
		d := dbtest.Open(b, u, db.KeyMigrations, auth.Migrations, jobs.Migrations, pay.Migrations, race.Migrations)
		s := results.NewStore(d)
		var owner, raceID int64
		var events [2]int64
		err := d.WithTx(ctx, func(tx *db.Tx) error {
			if err := db.Scan(tx.QueryRow(ctx, `INSERT INTO users (username, username_key, email, email_key, password_hash, created_at, updated_at)
				VALUES ('dora', 'dora', 'd@example.com', 'd@example.com', 'x', 0, 0) RETURNING id`), &owner); err != nil {
				return err
			}
			if err := db.Scan(tx.QueryRow(ctx, `INSERT INTO race_races (slug, owner_id, name, race_date, tz, created_at, updated_at)
				VALUES ('bench', ?, 'Bench', '2027-01-01', 'UTC', 0, 0) RETURNING id`, owner), &raceID); err != nil {
				return err
			}
			for i := range events {
				if err := db.Scan(tx.QueryRow(ctx, `INSERT INTO race_events (race_id, name, starts_at, opens_at, closes_at, price, cap, created_at)
					VALUES (?, 'E', 3, 1, 2, 0, 10, 0) RETURNING id`, raceID), &events[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, 8))
		for _, ev := range events {
			if err := results.Seed(ctx, d, raceID, ev, n, rng); err != nil {
				b.Fatal(err)
			}
		}
		ev := events[1]
		// Three late finishers with a name nobody else has.
		if _, err := d.Exec(ctx, `UPDATE race_results SET name = 'Quentin Xylander', name_key = 'quentin xylander'
			WHERE event_id = ? AND pos IN (30000, 40000, 49000)`, ev); err != nil {
			b.Fatal(err)
		}
		if d.Dialect == db.Postgres {
			if _, err := d.Exec(ctx, `ANALYZE race_results`); err != nil {
				b.Fatal(err)
			}
		}
		for _, q := range []struct {
			name  string
			words []string
			want  int
		}{
			{"common ma", []string{"ma"}, results.Suggestions},
			{"rarer dvo", []string{"dvo"}, results.Suggestions},
			{"none xq", []string{"xq"}, 0},
			{"late xyl", []string{"xyl"}, 3},
			{"two words zoe smi", []string{"zoe", "smi"}, results.Suggestions},
		} {
			b.Run(name+"/suggest "+q.name, func(b *testing.B) {
				for b.Loop() {
					rs, err := s.Search(ctx, ev, n, q.words, db.Cursor{}, results.Suggestions)
					if err != nil || len(rs) != q.want {
						b.Fatalf("%d results, %v; want %d", len(rs), err, q.want)
					}
				}
			})
		}
		b.Run(name+"/page 4000", func(b *testing.B) {
			for b.Loop() {
				if rs, err := s.List(ctx, ev, 39990, results.PerPage); err != nil || len(rs) != results.PerPage {
					b.Fatalf("%d results, %v", len(rs), err)
				}
			}
		})
	}
}
