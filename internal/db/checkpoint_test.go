package db

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCheckpointsOffTheCommits: a log under the writer's own 1,000-page
// mark reaches the database file anyway, copied by the checkpointer.
func TestCheckpointsOffTheCommits(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := openTestSQLite(t, dir)
	row := strings.Repeat("x", 4000)
	err := d.WithTx(ctx, func(tx *Tx) error {
		for range 500 { // 2 MB: half SQLite's mark
			if _, err := tx.Exec(ctx, `INSERT INTO t (s) VALUES (?)`, row); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * CheckpointEvery)
	for fileSize(t, dir, "tutti.db") < 2_000_000 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := fileSize(t, dir, "tutti.db"); n < 2_000_000 {
		t.Errorf("database file %d bytes %v after 2 MB were committed; want the log copied in", n, 10*CheckpointEvery)
	}
}

// TestLogStaysBounded: commit after commit, the log is restarted rather
// than grown (a log checkpointed only from another connection grew to
// 5.5 GB in a burst: it never found it copied whole between commits).
func TestLogStaysBounded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := openTestSQLite(t, dir)
	row := strings.Repeat("x", 4000)
	for range 6000 { // 24 MB, a row a commit
		if _, err := d.Exec(ctx, `INSERT INTO t (s) VALUES (?)`, row); err != nil {
			t.Fatal(err)
		}
	}
	if n := fileSize(t, dir, "tutti.db-wal"); n > 12<<20 {
		t.Errorf("log %d bytes after 24 MB in 6,000 commits; want it restarted near its 4 MB mark", n)
	}
}

func openTestSQLite(t *testing.T, dir string) *DB {
	t.Helper()
	d, err := Open(context.Background(), "", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	if _, err := d.Exec(context.Background(), `CREATE TABLE t (s TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	return d
}

func fileSize(t *testing.T, dir, name string) int64 {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
