package db_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// OnOthers tells each registration of another process's commit (here:
// another handle on the same file), and not of this process's own writes,
// batched or not; Close stops its watcher.
func TestOnOthersSeesOnlyOtherWriters(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	d, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Migrate(ctx, nil, testMigrations); err != nil {
		t.Fatal(err)
	}
	var seen, seen2 atomic.Int64
	db.SetOthersEvery(d, 5*time.Millisecond)
	d.OnOthers(func() { seen.Add(1) })
	d.OnOthers(func() { seen2.Add(1) })
	if !db.OthersWatching(d) {
		t.Fatal("no watcher after OnOthers")
	}
	// waitLooks waits for a look that began after it was called: what it
	// was to see, it has seen (the watcher runs until Close).
	waitLooks := func() {
		t.Helper()
		n := db.OthersLooks(d)
		for end := time.Now().Add(5 * time.Second); db.OthersLooks(d) < n+2; time.Sleep(time.Millisecond) {
			if time.Now().After(end) {
				t.Fatal("the watcher did not look within 5 s")
			}
		}
	}
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
	if n, n2 := seen.Load(), seen2.Load(); n != 1 || n2 != 1 {
		t.Errorf("one commit of another process reported %d and %d times; want once to each", n, n2)
	}
	closed := make(chan error, 1)
	go func() { closed <- d.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	if db.OthersWatching(d) {
		t.Fatal("the watcher goes on after Close")
	}
	if _, err := other.Exec(ctx, "UPDATE t SET n = n + 1 WHERE name = 'own'"); err != nil {
		t.Fatal(err)
	}
	// Closed: nothing looks any more, and nothing can report it.
	if n := seen.Load(); n != 1 {
		t.Errorf("after Close, another commit reported: %d times in all", n)
	}
}
