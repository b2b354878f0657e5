package db_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/testenv"
)

// inRecovery asks q whether it is a standby: true on the replica.
func inRecovery(t *testing.T, q db.Querier) bool {
	t.Helper()
	var standby bool
	if err := db.Scan(q.QueryRow(context.Background(), "SELECT pg_is_in_recovery()"), &standby); err != nil {
		t.Fatalf("read through the lagging reader: %v; want no error", err)
	}
	return standby
}

// eventually retries cond every 50 ms until it holds or within is over.
func eventually(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(within); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%s: not within %v", what, within)
		}
	}
}

func TestLaggingIsTheDatabaseWithoutReplica(t *testing.T) {
	d := dbtest.Open(t, "")
	if q := d.Lagging(); q != db.Querier(d) {
		t.Errorf("Lagging() on SQLite = %T; want the DB itself (its read pool)", q)
	}
	if q := d.AtLeast(context.Background(), 7, "SELECT 1"); q != db.Querier(d) {
		t.Errorf("AtLeast on SQLite = %T; want the DB itself", q)
	}
	if err := d.AddReplica(context.Background(), "postgres://x@127.0.0.1:1/x"); err == nil {
		t.Error("a replica for SQLite: no error")
	}
}

// A replica that never answers costs no read an error: they go to the primary.
func TestDeadReplicaReadsFromPrimary(t *testing.T) {
	base := os.Getenv(dbtest.Env)
	if base == "" {
		t.Skip(dbtest.Env + " is not set")
	}
	d := dbtest.Open(t, base)
	ctx := context.Background()
	dead := testenv.FreeAddr(t) // nothing listens there
	if err := d.AddReplica(ctx, "postgres://postgres@"+dead+"/none?sslmode=disable"); err != nil {
		t.Fatalf("AddReplica of a dead replica: %v; want nil (reads fall back)", err)
	}
	for range 3 {
		if inRecovery(t, d.Lagging()) {
			t.Fatal("read served by a standby; want the primary")
		}
		rows, err := d.Lagging().Query(ctx, "SELECT 1")
		if err != nil {
			t.Fatalf("Query: %v; want the primary's answer", err)
		}
		rows.Close()
	}
	served, fell, _ := d.ReplicaStats()
	if served != 0 || fell != 6 {
		t.Errorf("served %d by the replica, %d fell back; want 0 and 6", served, fell)
	}
}

// The real thing: a primary and its streaming replica (TUTTI_TEST_REPLICA=1).
func TestReplicaServesLaggingReadsAndFallsBack(t *testing.T) {
	pair := dbtest.StartPair(t)
	ctx := context.Background()
	d, err := db.Open(ctx, pair.Primary, "")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.AddReplica(ctx, pair.Replica); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(ctx, "CREATE TABLE notes (id int PRIMARY KEY, version bigint NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(ctx, "INSERT INTO notes VALUES (1, 5)"); err != nil {
		t.Fatal(err)
	}

	// A row written to the primary shows on the replica, read through Lagging.
	if !inRecovery(t, d.Lagging()) {
		t.Fatal("Lagging read served by the primary; want the replica")
	}
	eventually(t, 10*time.Second, "the row reaches the replica", func() bool {
		var v int64
		return db.Scan(d.Lagging().QueryRow(ctx, "SELECT version FROM notes WHERE id = 1"), &v) == nil && v == 5
	})
	served, fell, _ := d.ReplicaStats()
	if served < 2 || fell != 0 {
		t.Errorf("replica served %d, %d fell back; want >= 2 and 0", served, fell)
	}
	// AtLeast: the replica once it shows the version, the primary for a later one.
	eventually(t, 10*time.Second, "AtLeast(5) picks the replica", func() bool {
		return d.AtLeast(ctx, 5, "SELECT version FROM notes WHERE id = 1") != db.Querier(d)
	})
	if q := d.AtLeast(ctx, 6, "SELECT version FROM notes WHERE id = 1"); q != db.Querier(d) {
		t.Error("AtLeast(6) with the replica at 5: the replica; want the primary")
	}
	if _, _, behind := d.ReplicaStats(); behind != 1 {
		t.Errorf("behind = %d; want 1", behind)
	}

	// The replica stops: reads succeed from the primary, with no error.
	pair.StopReplica(t)
	_, fell0, _ := d.ReplicaStats()
	start := time.Now()
	for range 20 {
		if inRecovery(t, d.Lagging()) {
			t.Fatal("read served by a standby while the replica is down")
		}
		rows, err := d.Lagging().Query(ctx, "SELECT id FROM notes")
		if err != nil {
			t.Fatalf("Query with the replica down: %v; want the primary's rows", err)
		}
		rows.Close()
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("40 reads with the replica down took %v; want no timeout each", el)
	}
	if _, fell, _ := d.ReplicaStats(); fell-fell0 != 40 {
		t.Errorf("fell back %d times; want 40", fell-fell0)
	}
	if q := d.AtLeast(ctx, 5, "SELECT version FROM notes WHERE id = 1"); q != db.Querier(d) {
		t.Error("AtLeast with the replica down: the replica; want the primary")
	}

	// It comes back: reads return to it after the back-off.
	pair.StartReplica(t)
	eventually(t, 15*time.Second, "reads return to the restarted replica", func() bool { return inRecovery(t, d.Lagging()) })
}

func TestAtVersionWithoutReplicaReadsOnce(t *testing.T) {
	d := dbtest.Open(t, "")
	runs := 0
	q, err := d.AtVersion(context.Background(), 9, func(q db.Querier) (int64, error) {
		runs++
		return 3, nil
	})
	if q != db.Querier(d) || err != nil || runs != 1 {
		t.Errorf("AtVersion on SQLite: the DB %v, err %v, %d runs; want the DB, nil, 1", q == db.Querier(d), err, runs)
	}
}
