package db_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
)

// On PostgreSQL a request's write transaction sends BEGIN with its request
// key's claim: a transaction of one statement is three round trips (BEGIN
// and claim, the statement, COMMIT), not four. A repeated key is refused
// with nothing written; a transaction whose statement failed (its error
// swallowed) does not pass for committed; the pool's connections come out
// of each clean, for the next transaction and for reads.
func TestPostgresWriteRoundTrips(t *testing.T) {
	base := os.Getenv(dbtest.Env)
	if base == "" {
		t.Skip(dbtest.Env + " is not set")
	}
	ctx := context.Background()
	u, err := url.Parse(dbtest.FreshSchema(t, base))
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	u.Host = p.ln.Addr().String()
	d := dbtest.Open(t, u.String(), db.KeyMigrations)
	d.SQL().SetMaxOpenConns(1) // every transaction on the one connection: a left-open one would show
	if _, err := d.Exec(ctx, "CREATE TABLE w (x TEXT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	insert := func(ctx context.Context, x string) error {
		return d.WithTx(ctx, func(tx *db.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO w (x) VALUES (?)", x)
			return err
		})
	}
	for _, k := range []string{"warm-1", "warm-2", "warm-3"} { // statements prepared, the first session reset's ping done
		if err := insert(db.WithRequestKey(ctx, k), k); err != nil {
			t.Fatal(err)
		}
	}
	before := p.sends.Load()
	if err := insert(db.WithRequestKey(ctx, "req-1"), "a"); err != nil {
		t.Fatal(err)
	}
	if got := p.sends.Load() - before; got != 3 {
		t.Errorf("a keyed transaction of one INSERT sent %d requests; want 3", got)
	}
	before = p.sends.Load()
	if err := insert(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if got := p.sends.Load() - before; got != 3 {
		t.Errorf("a transaction with no key sent %d requests; want 3 (BEGIN, INSERT, COMMIT)", got)
	}
	if err := insert(db.WithRequestKey(ctx, "req-1"), "c"); !errors.Is(err, errs.ErrRepeated) {
		t.Errorf("a repeated key: %v; want ErrRepeated", err)
	}
	err = d.WithTx(ctx, func(tx *db.Tx) error {
		tx.Exec(ctx, "INSERT INTO w (x) VALUES (?)", "a") // a duplicate: the transaction is aborted
		return nil
	})
	if err == nil {
		t.Error("a transaction whose statement failed committed with no error")
	}
	if err := insert(ctx, "d"); err != nil {
		t.Errorf("the next transaction on the connection: %v", err)
	}
	var n int
	if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM w WHERE x IN ('a', 'b', 'c', 'd')"), &n); err != nil || n != 3 {
		t.Errorf("rows a, b, d (and no c): %d, %v; want 3", n, err)
	}
	var open string
	if err := db.Scan(d.QueryRow(ctx, "SELECT state FROM pg_stat_activity WHERE pid = pg_backend_pid()"), &open); err != nil || open != "active" {
		t.Errorf("the connection after the transactions: %q, %v; want active outside any transaction", open, err)
	}
}
