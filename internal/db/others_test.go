package db_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// WatchOthers tells of another process's commit (here: another handle on
// the same file), and not of this process's own writes, batched or not.
func TestWatchOthersSeesOnlyOtherWriters(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	d, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Migrate(ctx, nil, testMigrations); err != nil {
		t.Fatal(err)
	}
	var seen atomic.Int64
	done := make(chan struct{})
	go func() { d.WatchOthers(ctx, 5*time.Millisecond, func() { seen.Add(1) }); close(done) }()
	waitLooks := func() { time.Sleep(60 * time.Millisecond) } // several looks
	waitLooks()
	if _, err := d.Exec(ctx, "INSERT INTO t (name) VALUES ('own')"); err != nil {
		t.Fatal(err)
	}
	if err := d.Batch().Do(ctx, func(ctx context.Context, tx *db.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO t (name) VALUES ('own, batched')")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	waitLooks()
	if n := seen.Load(); n != 0 {
		t.Fatalf("own writes reported as another's %d times", n)
	}
	other, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(ctx, "UPDATE t SET n = n + 1 WHERE name = 'own'"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for seen.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if seen.Load() == 0 {
		t.Fatal("another process's commit went unseen")
	}
	waitLooks()
	if n := seen.Load(); n != 1 {
		t.Errorf("one commit of another process reported %d times", n)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("WatchOthers did not return when its context ended")
	}
}
