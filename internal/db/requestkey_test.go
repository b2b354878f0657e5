package db_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
)

// A request sent twice under one key (a proxy's retry after the first
// instance died) writes once: the second send's transaction finds the key
// and returns ErrRepeated with nothing written; later transactions of the
// first send write freely; a rolled-back send leaves the key free.
func TestRequestKeyWritesOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		insert := func(ctx context.Context, name string) error {
			return d.WithTx(ctx, func(tx *db.Tx) error {
				_, err := tx.Exec(ctx, "INSERT INTO t (name) VALUES (?)", name)
				return err
			})
		}
		count := func() int {
			t.Helper()
			var n int
			if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM t"), &n); err != nil {
				t.Fatal(err)
			}
			return n
		}

		first := db.WithRequestKey(ctx, "req-1")
		if err := insert(first, "a"); err != nil {
			t.Fatal(err)
		}
		// The same request's next transaction is not a repeat.
		if err := insert(first, "b"); err != nil {
			t.Errorf("second transaction of the same send: %v; want it written", err)
		}
		// The retry: a new send with the same key.
		again := db.WithRequestKey(ctx, "req-1")
		if err := insert(again, "c"); !errors.Is(err, errs.ErrRepeated) {
			t.Errorf("the request sent again: %v; want ErrRepeated", err)
		}
		if n := count(); n != 2 {
			t.Errorf("%d rows; want 2 (the repeat wrote nothing)", n)
		}
		// A request that is safe to carry out again by itself sets its key
		// aside: the retry goes on.
		if err := insert(db.WithoutRequestKey(db.WithRequestKey(ctx, "req-1")), "c"); err != nil {
			t.Errorf("the request sent again, without its key: %v; want it written", err)
		}
		if n := count(); n != 3 {
			t.Errorf("%d rows; want 3", n)
		}

		// A send that rolled back (its instance died mid-transaction) does
		// not keep its key: the retry is carried out.
		failed := db.WithRequestKey(ctx, "req-2")
		boom := errors.New("boom")
		if err := d.WithTx(failed, func(tx *db.Tx) error { return boom }); !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if err := insert(db.WithRequestKey(ctx, "req-2"), "d"); err != nil {
			t.Errorf("retry of a rolled-back send: %v; want it written", err)
		}
		// No key: nothing is remembered.
		if err := insert(ctx, "e"); err != nil {
			t.Fatal(err)
		}
		if n := count(); n != 5 {
			t.Errorf("%d rows; want 5", n)
		}
	}, testMigrations, db.KeyMigrations)
}

// Batched writes claim their own request's key: of 8 concurrent sends of
// one request and 8 of others, in shared batches, one of the first lands.
func TestRequestKeyInBatches(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		b := d.NewBatcher(16)
		var wg sync.WaitGroup
		errc := make([]error, 16)
		for i := range 16 {
			key := "same"
			if i%2 == 1 {
				key = "other-" + string(rune('a'+i))
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				errc[i] = b.Do(db.WithRequestKey(ctx, key), func(ctx context.Context, tx *db.Tx) error {
					_, err := tx.Exec(ctx, "INSERT INTO t (name) VALUES (?)", "w"+string(rune('a'+i)))
					return err
				})
			}()
		}
		wg.Wait()
		b.Close()
		var landed, repeated int
		for i, err := range errc {
			switch {
			case err == nil:
				landed++
			case errors.Is(err, errs.ErrRepeated) && i%2 == 0:
				repeated++
			default:
				t.Errorf("write %d: %v", i, err)
			}
		}
		var n int
		if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM t"), &n); err != nil {
			t.Fatal(err)
		}
		if landed != 9 || repeated != 7 || n != 9 {
			t.Errorf("%d landed, %d repeated, %d rows; want 9, 7, 9", landed, repeated, n)
		}
	}, testMigrations, db.KeyMigrations)
}
