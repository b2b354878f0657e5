package race

import (
	"context"
	"github.com/tutti-dev/tutti/internal/race/results"
	mrand "math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/mail"
)

// BenchmarkWriteToRegistrants sends a director's message of 2,000
// characters to an event of 50,000 registrants: 50,000 notices and mails
// (notices pointing to the message stored once, and small mail jobs) in
// one transaction, on SQLite and, with TUTTI_TEST_POSTGRES, on
// PostgreSQL. It reports the heap in use at the end of the sending above
// the start (peak-MB: sampled while it runs), which stays a batch's
// letters, not 50,000 of them.
//
//	go test -run '^$' -bench WriteToRegistrants -benchtime 3x ./internal/race/
func BenchmarkWriteToRegistrants(b *testing.B) {
	const n = 50_000
	for name, u := range dbtest.URLs(b) {
		d := dbtest.Open(b, u, sets()...)
		owner, raceID := newBigRace(b, d, n)
		ctx := context.Background()
		var ev int64
		if err := d.WithTx(ctx, func(tx *db.Tx) error {
			return db.Scan(tx.QueryRow(ctx, `INSERT INTO race_events (race_id, name, starts_at, opens_at, closes_at, price, cap, created_at)
				VALUES (?, 'Marathon', 3000000, 1, 2000000, 0, ?, 0) RETURNING id`, raceID, n), &ev)
		}); err != nil {
			b.Fatal(err)
		}
		rs, err := results.MadeUp(n, mrand.New(mrand.NewPCG(1, 2)))
		if err != nil {
			b.Fatal(err)
		}
		users := make([]int64, n)
		for i := range users {
			users[i] = owner + int64(i)
		}
		if err := seedRegistrations(ctx, d, raceID, ev, users, rs, 0, time.Now()); err != nil {
			b.Fatal(err)
		}
		if err := d.Analyze(ctx); err != nil { // as a site's statistics know them
			b.Fatal(err)
		}
		q := jobs.New(d, jobs.Options{})
		m, err := mail.New(mail.Config{Dir: b.TempDir()}, q)
		if err != nil {
			b.Fatal(err)
		}
		assets, err := Module().Assets()
		if err != nil {
			b.Fatal(err)
		}
		a, err := New(Deps{DB: d, Cache: cache.New(cache.NewLocal(8 << 20)), Mail: m, Jobs: q, Assets: assets})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(a.Close)
		r, err := a.store.RaceBySlug(ctx, d, "bench")
		if err != nil {
			b.Fatal(err)
		}
		dir := &Directing{User: &auth.User{ID: owner}, Race: r}
		in := MessageInput{Subject: "Parking", Body: strings.Repeat("Park on Pier Road. ", 105)}
		b.Run(name, func(b *testing.B) {
			var peak uint64
			for range b.N {
				runtime.GC()
				var before runtime.MemStats
				runtime.ReadMemStats(&before)
				stop := make(chan struct{})
				sampled := make(chan uint64)
				go func() { // the heap's high-water mark while it sends
					var top uint64
					var ms runtime.MemStats
					for {
						runtime.ReadMemStats(&ms)
						top = max(top, ms.HeapInuse)
						select {
						case <-stop:
							sampled <- top
							return
						case <-time.After(20 * time.Millisecond):
						}
					}
				}()
				sent, err := a.svc.WriteToRegistrants(ctx, dir, ev, in)
				close(stop)
				top := <-sampled
				if err != nil || sent != n {
					b.Fatalf("sent %d: %v; want %d", sent, err, n)
				}
				if top > before.HeapInuse {
					peak = max(peak, top-before.HeapInuse)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-MB")
		})
	}
}
