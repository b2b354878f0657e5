package db_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
)

var testMigrations = db.Migrations{App: "dbtest", FS: fstest.MapFS{
	"sqlite/00001_t.sql":   {Data: []byte("-- +goose Up\nCREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, n INTEGER NOT NULL DEFAULT 0);\n-- +goose Down\nDROP TABLE t;\n")},
	"postgres/00001_t.sql": {Data: []byte("-- +goose Up\nCREATE TABLE t (id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL UNIQUE, n INTEGER NOT NULL DEFAULT 0);\n-- +goose Down\nDROP TABLE t;\n")},
}}

func TestRebind(t *testing.T) {
	pg := &db.DB{Dialect: db.Postgres}
	if got, want := pg.Rebind("SELECT a FROM t WHERE b = ? AND c IN (?, ?)"), "SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)"; got != want {
		t.Errorf("got %q; want %q", got, want)
	}
	lite := &db.DB{Dialect: db.SQLite}
	if got := lite.Rebind("x = ?"); got != "x = ?" {
		t.Errorf("sqlite rebind changed the query: %q", got)
	}
}

func TestTransactionsAndErrors(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		if _, err := d.Exec(ctx, "INSERT INTO t (name) VALUES (?)", "a"); err != nil {
			t.Fatal(err)
		}
		_, err := d.Exec(ctx, "INSERT INTO t (name) VALUES (?)", "a")
		if !errors.Is(err, errs.ErrConflict) {
			t.Errorf("duplicate insert: got %v; want ErrConflict", err)
		}
		// A failing transaction writes nothing.
		boom := errors.New("boom")
		err = d.WithTx(ctx, func(tx *db.Tx) error {
			if _, err := tx.Exec(ctx, "INSERT INTO t (name) VALUES (?)", "b"); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Errorf("got %v; want boom", err)
		}
		var n int
		if err := db.Scan(d.QueryRow(ctx, "SELECT COUNT(*) FROM t"), &n); err != nil || n != 1 {
			t.Errorf("rows = %d, %v; want 1 (rolled back)", n, err)
		}
		var name string
		if err := db.Scan(d.QueryRow(ctx, "SELECT name FROM t WHERE id = ?", 12345), &name); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("missing row: got %v; want ErrNotFound", err)
		}
	}, testMigrations)
}

// Transactions counts the write transactions begun, as Queries counts
// statements: Exec and WithTx one each, a batch of writes one, a read
// none, and none under Uncounted.
func TestTransactionsCounted(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		tx0, q0 := d.Transactions(), d.Queries()
		if _, err := d.Exec(ctx, "INSERT INTO t (name) VALUES (?)", "a"); err != nil {
			t.Fatal(err)
		}
		if err := d.WithTx(ctx, func(tx *db.Tx) error {
			_, err := tx.Exec(ctx, "UPDATE t SET n = n + 1 WHERE name = ?", "a")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.Scan(d.QueryRow(ctx, "SELECT n FROM t WHERE name = ?", "a"), &n); err != nil || n != 1 {
			t.Fatalf("n = %d, %v; want 1", n, err)
		}
		if _, err := d.Exec(db.Uncounted(ctx), "UPDATE t SET n = 0"); err != nil {
			t.Fatal(err)
		}
		if got, q := d.Transactions()-tx0, d.Queries()-q0; got != 2 || q != 5 {
			t.Errorf("%d transactions, %d statements; want 2 (Exec, WithTx), 5 (a begin and a statement each, and the read)", got, q)
		}
	}, testMigrations)
}

func TestConcurrentWritesAllLand(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		if _, err := d.Exec(ctx, "INSERT INTO t (name) VALUES ('counter')"); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		const workers, each = 8, 25
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range each {
					err := d.WithTx(ctx, func(tx *db.Tx) error {
						_, err := tx.Exec(ctx, "UPDATE t SET n = n + 1 WHERE name = 'counter'")
						return err
					})
					if err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		var n int
		if err := db.Scan(d.QueryRow(ctx, "SELECT n FROM t WHERE name = 'counter'"), &n); err != nil || n != workers*each {
			t.Errorf("counter = %d, %v; want %d", n, err, workers*each)
		}
	}, testMigrations)
}

func TestCopyFrom(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		rows := make([][]any, 12000)
		for i := range rows {
			rows[i] = []any{int64(i + 1), fmt.Sprint("n", i), i}
		}
		if err := d.CopyFrom(ctx, "t", []string{"id", "name", "n"}, rows); err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.Scan(d.QueryRow(ctx, "SELECT COUNT(*) FROM t"), &n); err != nil || n != len(rows) {
			t.Errorf("count = %d, %v; want %d", n, err, len(rows))
		}
		// After the load, PostgreSQL's planner knows the table's rows.
		if err := d.Analyze(ctx); err != nil {
			t.Fatal(err)
		}
		if d.Dialect == db.Postgres {
			var tuples float64
			if err := db.Scan(d.QueryRow(ctx, "SELECT reltuples FROM pg_class WHERE oid = 't'::regclass"), &tuples); err != nil || tuples != float64(len(rows)) {
				t.Errorf("reltuples after Analyze = %v, %v; want %d", tuples, err, len(rows))
			}
		}
	}, testMigrations)
}

func TestMigrateTwiceIsNoop(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		if err := d.Migrate(context.Background(), nil, testMigrations); err != nil {
			t.Errorf("second migrate: %v", err)
		}
	}, testMigrations)
}

// A data directory whose name holds '?', '#' or '%' still gets its
// database at that path, with every connection setting applied.
func TestSQLiteDataDirWithURICharacters(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "a#b?c%41d")
	d, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var fk int
	var mode string
	if err := db.Scan(d.QueryRow(ctx, "PRAGMA foreign_keys"), &fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
	if err := db.Scan(d.QueryRow(ctx, "PRAGMA journal_mode"), &mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "tutti.db")); err != nil {
		t.Errorf("the database is not where the data directory says: %v", err)
	}
}

func TestPlaceholders(t *testing.T) {
	if got := db.Params(3); got != "?,?,?" {
		t.Errorf("Params(3) = %q", got)
	}
	if got := db.Values(2, 3); got != "(?,?,?),(?,?,?)" {
		t.Errorf("Values(2, 3) = %q", got)
	}
	if db.Params(0) != "" || db.Values(0, 2) != "" {
		t.Error("none: want empty")
	}
}
