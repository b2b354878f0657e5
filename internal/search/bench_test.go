package search_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/search"
)

var (
	benchFirst = []string{"Zoë", "Marta", "Mateo", "Anna", "Jonas", "Lucía", "Noah", "Chloé", "Mikael", "Sofia", "Ibrahim", "Aiko", "Björn", "Maya", "Liam", "Élodie"}
	benchLast  = []string{"Smith", "Dvořák", "Müller", "García", "O'Brien", "Nguyen", "Kowalski", "Rossi", "Martin", "Haddad", "Tanaka", "Johansson", "Silva", "Novak", "Dubois", "Khan"}
)

// BenchmarkFind times type-ahead searches (8 rows) over 50,000 names, in
// list order, within a scope of 50,000 (and another scope of 50,000
// beside it), on SQLite and, with TUTTI_TEST_POSTGRES, on PostgreSQL: a
// common start, a rarer one, one nobody has, one only three late rows
// have, two words, and the same ranked.
//
//	go test -run '^$' -bench Find ./internal/search/
func BenchmarkFind(b *testing.B) {
	const n = 50_000
	ctx := context.Background()
	for name, u := range dbtest.URLs(b) {
		d := dbtest.Open(b, u)
		things(b, d)
		rng := rand.New(rand.NewPCG(1, 2))
		for grp := int64(1); grp <= 2; grp++ {
			list := make([]string, n)
			for i := range list {
				list[i] = benchFirst[rng.IntN(len(benchFirst))] + " " + benchLast[rng.IntN(len(benchLast))]
			}
			list[30000], list[40000], list[49000] = "Quentin Xylander", "Quentin Xylander", "Quentin Xylander"
			addThings(b, d, grp, list...)
		}
		x := byGroup(d)
		for _, q := range []struct {
			name  string
			words string
			rank  bool
			want  int
		}{
			{"common ma", "ma", false, 8},
			{"rarer dvo", "dvo", false, 8},
			{"none xq", "xq", false, 0},
			{"late xyl", "xyl", false, 3},
			{"two words zoe smi", "zoe smi", false, 8},
			{"ranked two words zoe smi", "zoe smi", true, 8},
		} {
			b.Run(name+"/"+q.name, func(b *testing.B) {
				f := search.Query{Words: search.Words(q.words, 4), Scope: 2, Rows: n, Limit: 8, Rank: q.rank}
				for b.Loop() {
					rs, err := search.Find(ctx, d, d, x, scanThing, f)
					if err != nil || len(rs) != q.want {
						b.Fatalf("%d rows, %v; want %d", len(rs), err, q.want)
					}
				}
			})
		}
	}
}
