package roar

import (
	"context"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// TestRoarIDsFollowCommitOrder: on PostgreSQL several instances write at
// once; a roar whose transaction is still open holds back the next, so that
// ids are handed out in commit order and "since <id>" readers miss nothing.
// (With SQLite one connection writes, so the order holds by construction.)
func TestRoarIDsFollowCommitOrder(t *testing.T) {
	base := os.Getenv(dbtest.Env)
	if base == "" {
		t.Skip("needs PostgreSQL: set " + dbtest.Env)
	}
	ctx := context.Background()
	d := dbtest.Open(t, dbtest.FreshSchema(t, base), auth.Migrations, Migrations)
	var author int64
	if err := db.Scan(d.QueryRow(ctx, `INSERT INTO users (username, username_key, email, email_key, password_hash, created_at, updated_at)
		VALUES ('ann', 'ann', 'ann@example.com', 'ann@example.com', 'x', 0, 0) RETURNING id`), &author); err != nil {
		t.Fatal(err)
	}
	s := NewStore(d, time.Now)
	inserted, release, aDone := make(chan int64, 1), make(chan struct{}), make(chan error, 1)
	var pidA int64
	var once sync.Once
	let := func() { once.Do(func() { close(release) }) }
	defer let() // a failing check must not leave the transaction open
	go func() {
		aDone <- d.WithTx(ctx, func(tx *db.Tx) error {
			id, err := s.insert(ctx, tx, Post{Author: author, Body: "first, committed last"}, nil)
			if err == nil {
				err = db.Scan(tx.QueryRow(ctx, "SELECT pg_backend_pid()"), &pidA)
			}
			inserted <- id
			<-release
			return err
		})
	}()
	idA := <-inserted
	bDone := make(chan int64, 1)
	go func() {
		var id int64
		err := d.WithTx(ctx, func(tx *db.Tx) (err error) {
			id, err = s.insert(ctx, tx, Post{Author: author, Body: "second"}, nil)
			return err
		})
		if err != nil {
			t.Error(err)
		}
		bDone <- id
	}()
	// Wait until the second insert is blocked by the first's transaction
	// (a condition PostgreSQL reports, rather than a wall-clock window).
	for blocked := 0; blocked == 0; {
		select {
		case id := <-bDone:
			t.Fatalf("roar %d committed while roar %d's transaction was still open", id, idA)
		default:
		}
		if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE ? = ANY(pg_blocking_pids(pid))", pidA), &blocked); err != nil {
			t.Fatal(err)
		}
		runtime.Gosched()
	}
	// The waiting insert has not even drawn its id yet: it could otherwise
	// commit a larger id before a smaller one.
	var last int64
	if err := db.Scan(d.QueryRow(ctx, "SELECT pg_sequence_last_value(pg_get_serial_sequence('roars', 'id')::regclass)"), &last); err != nil {
		t.Fatal(err)
	}
	if last != idA {
		t.Fatalf("the sequence is at %d while roar %d is uncommitted; want no id drawn after it", last, idA)
	}
	let()
	if err := <-aDone; err != nil {
		t.Fatal(err)
	}
	if idB := <-bDone; idB <= idA {
		t.Fatalf("the roar committed second got id %d, not above %d", idB, idA)
	}
}
