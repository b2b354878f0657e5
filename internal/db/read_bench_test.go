package db_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// BenchmarkPointReadWhileWriting is a read of one row by its text key in
// a table of 50,000 while another connection commits a small write every
// millisecond, as the race's wizard reads a runner's hold while the
// batched writes of other runners commit. In SQLite each commit makes a
// reading connection drop its page cache at its next read: what a read
// then costs is fetching its pages again.
func BenchmarkPointReadWhileWriting(b *testing.B) {
	ctx := context.Background()
	d, err := db.Open(ctx, "", b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { d.Close() })
	const rows = 50_000
	if _, err := d.Exec(ctx, `CREATE TABLE holds (id TEXT PRIMARY KEY, name TEXT NOT NULL, body TEXT NOT NULL, n INTEGER NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("x", 200)
	err = d.WithTx(ctx, func(tx *db.Tx) error {
		for i := range rows {
			if _, err := tx.Exec(ctx, `INSERT INTO holds (id, name, body, n) VALUES (?, ?, ?, 0)`, key(i), "runner", body); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	stop := make(chan struct{})
	var commits atomic.Int64
	go func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			if _, err := d.Exec(ctx, `UPDATE holds SET n = n + 1 WHERE id = ?`, key(i*7919%rows)); err == nil {
				commits.Add(1)
			}
		}
	}()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		var n int
		if err := db.Scan(d.QueryRow(ctx, `SELECT n FROM holds WHERE id = ?`, key(i*104729%rows)), &n); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.StopTimer()
	close(stop)
	b.ReportMetric(float64(commits.Load())/float64(b.Elapsed().Seconds()), "commits/s")
}

func key(i int) string { return fmt.Sprintf("h%025d", i) }
