package auth

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

var (
	benchFirst = []string{"Zoë", "Marta", "Mateo", "Anna", "Jonas", "Lucía", "Noah", "Chloé", "Mikael", "Sofia", "Ibrahim", "Aiko", "Björn", "Maya", "Liam", "Élodie"}
	benchLast  = []string{"Smith", "Dvořák", "Müller", "García", "O'Brien", "Nguyen", "Kowalski", "Rossi", "Martin", "Haddad", "Tanaka", "Johansson", "Silva", "Novak", "Dubois", "Khan"}
)

// BenchmarkFindPeople times people search's type-ahead (8 people) over
// 50,000 accounts, on SQLite and, with TUTTI_TEST_POSTGRES, on PostgreSQL:
// a common start of a name, a rarer one, one nobody has, one only three of
// the newest accounts have, two words, and a second page.
//
//	go test -run '^$' -bench FindPeople ./internal/auth/
func BenchmarkFindPeople(b *testing.B) {
	const n = 50_000
	ctx := context.Background()
	for name, u := range dbtest.URLs(b) {
		d := dbtest.Open(b, u, Migrations)
		s := &Store{db: d, people: peopleIndex(d.Dialect)}
		rng := rand.New(rand.NewPCG(3, 4))
		const per = 1000
		for start := 0; start < n; start += per {
			args := make([]any, 0, 6*per)
			for i := start; i < start+per; i++ {
				user := fmt.Sprintf("user%d", i)
				display := benchFirst[rng.IntN(len(benchFirst))] + " " + benchLast[rng.IntN(len(benchLast))]
				if i == 30000 || i == 40000 || i == 49000 {
					display = "Quentin Xylander"
				}
				args = append(args, user, user, user+"@example.com", user+"@example.com", display, nameKey(user, display))
			}
			if _, err := d.Exec(ctx, `INSERT INTO users (username, username_key, email, email_key, display_name, name_key, password_hash, created_at, updated_at)
				SELECT * FROM (VALUES `+db.Values(per, 6)+`) v, (SELECT 'x', 0, 0) c`, args...); err != nil {
				b.Fatal(err)
			}
		}
		if d.Dialect == db.Postgres {
			if _, err := d.Exec(ctx, `ANALYZE users`); err != nil {
				b.Fatal(err)
			}
		}
		second, _, err := s.FindPeople(ctx, "ma", 8, db.Cursor{})
		if err != nil || len(second) != 8 {
			b.Fatalf("ma: %d, %v", len(second), err)
		}
		for _, q := range []struct {
			name, q string
			after   db.Cursor
			want    int
		}{
			{"common ma", "ma", db.Cursor{}, 8},
			{"rarer dvo", "dvo", db.Cursor{}, 8},
			{"none xq", "xq", db.Cursor{}, 0},
			{"newest xyl", "xyl", db.Cursor{}, 3},
			{"two words zoe smi", "zoe smi", db.Cursor{}, 8},
			{"second page ma", "ma", db.Cursor{ID: second[7].ID}, 8},
		} {
			b.Run(name+"/"+q.name, func(b *testing.B) {
				for b.Loop() {
					ps, _, err := s.FindPeople(ctx, q.q, 8, q.after)
					if err != nil || len(ps) != q.want {
						b.Fatalf("%d people, %v; want %d", len(ps), err, q.want)
					}
				}
			})
		}
	}
}
