package db_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestPreparedTransactions: a statement a write transaction runs is kept
// prepared from its second sighting (SQLite), and a transaction using it
// sees its own writes, reports rows affected, rolls back whole and runs on
// after the table changes; a text seen once is not kept.
func TestPreparedTransactions(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		const (
			ins  = "INSERT INTO t (id, name, n) VALUES (?, ?, ?)"
			bump = "UPDATE t SET n = n + 1 WHERE id >= ?"
			read = "SELECT name, n FROM t WHERE id = ?"
		)
		write := func(id int, fail bool) error {
			return d.WithTx(ctx, func(tx *db.Tx) error {
				if _, err := tx.Exec(ctx, ins, id, fmt.Sprint("row", id), 0); err != nil {
					return err
				}
				res, err := tx.Exec(ctx, bump, id)
				if err != nil {
					return err
				}
				if n, _ := res.RowsAffected(); n != 1 {
					return fmt.Errorf("bump %d: %d rows affected; want 1", id, n)
				}
				var name string
				var n int
				if err := db.Scan(tx.QueryRow(ctx, read, id), &name, &n); err != nil || name != fmt.Sprint("row", id) || n != 1 {
					return fmt.Errorf("read back %d: %q %d %v", id, name, n, err)
				}
				if fail {
					return fmt.Errorf("rolled back")
				}
				return nil
			})
		}
		for id := 1; id <= 2; id++ {
			if err := write(id, false); err != nil {
				t.Fatal(err)
			}
		}
		if db.TxPrepared(d) >= 0 { // SQLite: prepared after the second sighting, on another goroutine
			deadline := time.Now().Add(5 * time.Second)
			for db.TxPrepared(d) < 3 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if n := db.TxPrepared(d); n != 3 {
				t.Fatalf("%d statements kept prepared after two transactions; want 3", n)
			}
		}
		if err := write(3, true); err == nil || err.Error() != "rolled back" {
			t.Fatalf("rolled back transaction: %v", err)
		}
		var n int
		if err := db.Scan(d.QueryRow(ctx, "SELECT COUNT(*) FROM t WHERE id = ?", 3), &n); err != nil || n != 0 {
			t.Errorf("rolled back insert kept: %d rows (%v)", n, err)
		}
		if err := write(3, false); err != nil {
			t.Fatal(err)
		}
		// The table changes under the kept statements: they run on.
		if _, err := d.Exec(ctx, "ALTER TABLE t ADD COLUMN extra INTEGER NOT NULL DEFAULT 7"); err != nil {
			t.Fatal(err)
		}
		if err := write(4, false); err != nil {
			t.Fatalf("after ALTER TABLE: %v", err)
		}
		var extra int
		if err := db.Scan(d.QueryRow(ctx, "SELECT n, extra FROM t WHERE id = ?", 4), &n, &extra); err != nil || n != 1 || extra != 7 {
			t.Errorf("row 4 after ALTER TABLE: n %d extra %d (%v)", n, extra, err)
		}
		// A text one transaction runs, however often, is not kept; nor is a
		// text of many parameters (a multi-row insert's), in any number of
		// transactions.
		before := db.TxQueued(d)
		in := "SELECT count(*) FROM t WHERE id IN (?" + strings.Repeat(", ?", 99) + ")"
		ids := make([]any, 100)
		for i := range ids {
			ids[i] = i
		}
		for range 3 {
			if err := d.WithTx(ctx, func(tx *db.Tx) error {
				var k int
				return db.Scan(tx.QueryRow(ctx, in, ids...), &k)
			}); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.WithTx(ctx, func(tx *db.Tx) error {
			for range 5 {
				if _, err := tx.Exec(ctx, "UPDATE t SET n = n WHERE id = 1 AND 1 = 1"); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		// What to keep is decided before WithTx returns (the preparing
		// runs later, on another goroutine): nothing to wait for.
		if after := db.TxQueued(d); after != before {
			t.Errorf("kept %d statements more: a text of one transaction or of 100 parameters", after-before)
		}
	}, testMigrations)
}

// BenchmarkTxExec is a write transaction of one update, the shape of most
// of a registration's writes (go test -bench TxExec ./internal/db/).
func BenchmarkTxExec(b *testing.B) {
	d := dbtest.Open(b, "", testMigrations)
	ctx := context.Background()
	if _, err := d.Exec(ctx, "INSERT INTO t (id, name, n) VALUES (1, 'a', 0)"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := d.WithTx(ctx, func(tx *db.Tx) error {
			_, err := tx.Exec(ctx, `UPDATE t SET n = n + 1 WHERE id = ? AND name <> '' AND n >= 0`, 1)
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
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
