package db_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// TestPreparedReads: reads through kept statements see every later write,
// run concurrently and nested (rows of a query open while the same query
// runs again), and queries past the bound still run.
func TestPreparedReads(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		const q = "SELECT name, n FROM t WHERE id = ?"
		for i := 1; i <= 3; i++ {
			if _, err := d.Exec(ctx, "INSERT INTO t (id, name, n) VALUES (?, ?, ?)", i, fmt.Sprint("row", i), i); err != nil {
				t.Fatal(err)
			}
			var name string
			var n int
			if err := db.Scan(d.QueryRow(ctx, q, i), &name, &n); err != nil || name != fmt.Sprint("row", i) || n != i {
				t.Fatalf("row %d: %q %d %v", i, name, n, err)
			}
		}
		if _, err := d.Exec(ctx, "UPDATE t SET n = 40 WHERE id = 2"); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.Scan(d.QueryRow(ctx, "SELECT n FROM t WHERE id = ?", 2), &n); err != nil || n != 40 {
			t.Errorf("after an update: n = %d (%v); want 40", n, err)
		}

		// Nested: the outer rows stay whole while the same text runs inside.
		const all = "SELECT id FROM t WHERE id >= ? ORDER BY id"
		rows, err := d.Query(ctx, all, 1)
		if err != nil {
			t.Fatal(err)
		}
		var ids []int
		for rows.Next() {
			var id int
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
			inner, err := d.Query(ctx, all, id)
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			for inner.Next() {
				k++
			}
			inner.Close()
			if k != 4-id {
				t.Errorf("inner query from %d: %d rows; want %d", id, k, 4-id)
			}
		}
		rows.Close()
		if fmt.Sprint(ids) != "[1 2 3]" {
			t.Errorf("outer rows: %v; want [1 2 3]", ids)
		}

		// Concurrent readers of one statement.
		var wg sync.WaitGroup
		errc := make(chan error, 64)
		for g := range 64 {
			wg.Go(func() {
				id := g%3 + 1
				var name string
				var n int
				if err := db.Scan(d.QueryRow(ctx, q, id), &name, &n); err != nil || name != fmt.Sprint("row", id) {
					errc <- fmt.Errorf("reader %d: %q %v", g, name, err)
				}
			})
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Error(err)
		}

		// More query texts than are kept: all still answer.
		for i := range 600 {
			var got int
			if err := db.Scan(d.QueryRow(ctx, fmt.Sprintf("SELECT n + %d FROM t WHERE id = ?", i), 1), &got); err != nil || got != 1+i {
				t.Fatalf("query text %d: %d (%v); want %d", i, got, err, 1+i)
			}
		}
		// A bad query reports its error, prepared or not.
		if err := db.Scan(d.QueryRow(ctx, "SELECT nope FROM t WHERE id = ?", 1), &n); err == nil {
			t.Error("a query of a missing column: no error")
		}
	}, testMigrations)
}

// BenchmarkQueryRow is one indexed row read, the shape of most page reads
// (go test -bench QueryRow ./internal/db/).
func BenchmarkQueryRow(b *testing.B) {
	d := dbtest.Open(b, "", testMigrations)
	ctx := context.Background()
	for i := 1; i <= 1000; i++ {
		if _, err := d.Exec(ctx, "INSERT INTO t (id, name, n) VALUES (?, ?, ?)", i, fmt.Sprint("row", i), i); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		var name string
		var n int
		if err := db.Scan(d.QueryRow(ctx, `SELECT name, n FROM t WHERE id = ? AND n >= 0 AND name <> '' ORDER BY id LIMIT 1`, i%1000+1), &name, &n); err != nil {
			b.Fatal(err)
		}
	}
}
