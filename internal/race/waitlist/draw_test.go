package waitlist_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/race"
	"github.com/tutti-dev/tutti/internal/race/waitlist"
)

// sets are the migrations the waiting list's tables need: race's, and
// those they stand on.
func sets() []db.Migrations {
	return []db.Migrations{db.KeyMigrations, auth.Migrations, jobs.Migrations, pay.Migrations, race.Migrations}
}

// bigLottery is a race of n runners, on d, whose lotteries they all enter.
type bigLottery struct {
	d             *db.DB
	n             int
	owner, raceID int64 // the runners are users owner .. owner+n-1
}

func newBigLottery(tb testing.TB, d *db.DB, n int) *bigLottery {
	ctx := context.Background()
	users, _, err := auth.SeedUsers(ctx, d, n, "password", time.Unix(0, 0), func(int) {})
	if err != nil {
		tb.Fatal(err)
	}
	l := &bigLottery{d: d, n: n, owner: users[0]}
	if err := d.WithTx(ctx, func(tx *db.Tx) error {
		return db.Scan(tx.QueryRow(ctx, `INSERT INTO race_races (slug, owner_id, name, race_date, tz, created_at, updated_at)
			VALUES ('bench', ?, 'Bench', '2027-01-01', 'UTC', 0, 0) RETURNING id`, l.owner), &l.raceID)
	}); err != nil {
		tb.Fatal(err)
	}
	return l
}

// event adds a lottery event, due to be drawn at 500 s, that every runner
// entered (the i-th runner i-th).
func (l *bigLottery) event(tb testing.TB) int64 {
	ctx := context.Background()
	var ev int64
	if err := l.d.WithTx(ctx, func(tx *db.Tx) error {
		return db.Scan(tx.QueryRow(ctx, `INSERT INTO race_events (race_id, name, starts_at, opens_at, closes_at, price, cap, lottery, draw_at, created_at)
			VALUES (?, 'E', 3000000, 1, 2000000, 0, 100, ?, 500000, 0) RETURNING id`, l.raceID, true), &ev)
	}); err != nil {
		tb.Fatal(err)
	}
	rows := make([][]any, l.n)
	for i := range rows {
		rows[i] = []any{ev, l.owner + int64(i), fmt.Sprintf("r%d@example.com", i), "waiting", 1000 + i, i + 1}
	}
	if err := l.d.CopyFrom(ctx, "race_waitlist", []string{"event_id", "user_id", "email", "status", "created_at", "rank"}, rows); err != nil {
		tb.Fatal(err)
	}
	return ev
}

// A draw of more entrants than one statement ranks gives every entrant its
// place in the drawn order.
func TestDrawRanksEveryEntrant(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		const n = 2*waitlist.RankChunk + 500
		l := newBigLottery(t, d, n)
		ev := l.event(t)
		reverse := func(n int, swap func(i, j int)) {
			for i := 0; i < n/2; i++ {
				swap(i, n-1-i)
			}
		}
		ctx := context.Background()
		if k, err := waitlist.Draw(ctx, d, time.UnixMilli(1_000_000), time.UnixMilli(1_100_000), reverse); err != nil || k != 1 {
			t.Fatalf("drew %d events: %v", k, err)
		}
		users, err := db.All(ctx, d, d, func(rows *sql.Rows) (u int64, err error) { return u, rows.Scan(&u) },
			`SELECT user_id FROM race_waitlist WHERE event_id = ? ORDER BY rank, id`, ev)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int64, n)
		for i := range want {
			want[i] = l.owner + int64(n-1-i)
		}
		if !slices.Equal(users, want) {
			t.Errorf("drawn order of %d entrants: first %v, last %v; want the reverse of their entry", len(users), users[:3], users[len(users)-3:])
		}
		var distinct, lo, hi int64
		if err := db.Scan(d.QueryRow(ctx, `SELECT count(DISTINCT rank), min(rank), max(rank) FROM race_waitlist WHERE event_id = ?`, ev), &distinct, &lo, &hi); err != nil || distinct != n || lo != 1 || hi != n {
			t.Errorf("ranks: %d distinct, %d to %d (%v); want 1 to %d each once", distinct, lo, hi, err, n)
		}
	}, sets()...)
}

// BenchmarkDraw draws a lottery of 10,000 entrants (ranks them and marks it
// drawn), on SQLite and, with TUTTI_TEST_POSTGRES, on PostgreSQL; each
// iteration a new event of the same entrants.
//
//	go test -run '^$' -bench Draw -benchtime 5x ./internal/race/waitlist/
func BenchmarkDraw(b *testing.B) {
	for name, u := range dbtest.URLs(b) {
		d := dbtest.Open(b, u, sets()...)
		l := newBigLottery(b, d, 10_000)
		b.Run(name, func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				l.event(b)
				b.StartTimer()
				if k, err := waitlist.Draw(context.Background(), d, time.UnixMilli(1_000_000), time.UnixMilli(1_100_000), waitlist.Shuffler()); err != nil || k != 1 {
					b.Fatalf("drew %d events: %v", k, err)
				}
			}
		})
	}
}
