package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// runsTable records each completed run of a job, by instance: what a
// handler with an effect outside the queue would leave.
func runsTable(t *testing.T, d *db.DB) {
	t.Helper()
	if _, err := d.Exec(context.Background(), "CREATE TABLE job_runs (job BIGINT NOT NULL, instance TEXT NOT NULL)"); err != nil {
		t.Fatal(err)
	}
}

// recordRun writes a row for the job's payload N (ids are not reused, but
// the payload is what the test enqueued).
func recordRun(d *db.DB, instance string) Handler {
	return func(ctx context.Context, j *Job) error {
		var p struct{ N int }
		if err := j.Decode(&p); err != nil {
			return err
		}
		_, err := d.Exec(ctx, "INSERT INTO job_runs (job, instance) VALUES (?, ?)", p.N, instance)
		return err
	}
}

func runs(t *testing.T, d *db.DB) (total, distinct int) {
	t.Helper()
	if err := db.Scan(d.QueryRow(context.Background(), "SELECT count(*), count(DISTINCT job) FROM job_runs"), &total, &distinct); err != nil {
		t.Fatal(err)
	}
	return total, distinct
}

// Two instances' queues on one database, both running: each of N jobs runs
// once, as the rows its handler wrote show.
func TestTwoInstancesRunEachJobOnce(t *testing.T) {
	twoHandles(t, func(t *testing.T, d1, d2 *db.DB) {
		runsTable(t, d1)
		const n = 200
		ctx := context.Background()
		qs := []*Queue{New(d1, Options{Workers: 3, Poll: 10 * time.Millisecond}), New(d2, Options{Workers: 3, Poll: 10 * time.Millisecond})}
		qs[0].Handle("count", recordRun(d1, "a"))
		qs[1].Handle("count", recordRun(d2, "b"))
		for _, q := range qs {
			if err := q.Start(); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			q := qs[i%2] // enqueued through both, while both run
			if _, err := q.Add(ctx, "count", map[string]int{"N": i}); err != nil {
				t.Fatal(err)
			}
		}
		for end := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if total, _ := runs(t, d1); total >= n {
				break
			}
			if time.Now().After(end) {
				total, _ := runs(t, d1)
				t.Fatalf("%d of %d jobs ran", total, n)
			}
		}
		for _, q := range qs {
			if err := q.Stop(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if total, distinct := runs(t, d1); total != n || distinct != n {
			t.Errorf("%d runs of %d jobs; want %d of %d: each once", total, distinct, n, n)
		}
		if c := count(t, qs[0]); c != (Counts{}) {
			t.Errorf("left in the table: %+v; want none", c)
		}
	})
}

// An instance dies in the middle of a job (its worker hangs: it neither
// finishes nor puts the job back): once the lease is over the other
// instance runs it, and the dead one's late outcome, when it comes, does
// not undo the new claim.
func TestDeadInstancesJobRunsElsewhereAfterLease(t *testing.T) {
	twoHandles(t, func(t *testing.T, d1, d2 *db.DB) {
		runsTable(t, d1)
		ctx := context.Background()
		const lease = time.Second
		a := New(d1, Options{Workers: 1, Lease: lease, Poll: 20 * time.Millisecond})
		b := New(d2, Options{Workers: 1, Lease: time.Minute, Poll: 20 * time.Millisecond})
		aStarted, aRelease := make(chan time.Time, 1), make(chan struct{})
		a.Handle("work", func(ctx context.Context, j *Job) error {
			aStarted <- time.Now()
			<-aRelease // hung: ignores its context, as a killed process would never answer
			return errors.New("too late")
		})
		bStarted, bRelease := make(chan *Job, 1), make(chan struct{})
		record := recordRun(d2, "b")
		b.Handle("work", func(ctx context.Context, j *Job) error {
			bStarted <- j
			<-bRelease
			return record(ctx, j)
		})
		if _, err := a.Add(ctx, "work", map[string]int{"N": 1}); err != nil {
			t.Fatal(err)
		}
		if err := a.Start(); err != nil {
			t.Fatal(err)
		}
		claimed := <-aStarted
		if err := b.Start(); err != nil {
			t.Fatal(err)
		}
		var j *Job
		select {
		case j = <-bStarted:
		case <-time.After(10 * time.Second):
			t.Fatal("the other instance did not take the dead one's job")
		}
		if waited := time.Since(claimed); waited < lease-50*time.Millisecond {
			t.Errorf("taken over after %v; want after the lease (%v)", waited, lease)
		}
		if j.Attempts != 2 {
			t.Errorf("attempt %d; want 2", j.Attempts)
		}
		// The dead worker's late failure must not touch b's claim; Stop
		// returns once a's worker has written it.
		close(aRelease)
		if err := a.Stop(ctx); err != nil {
			t.Fatal(err)
		}
		if c := count(t, a); c != (Counts{Running: 1}) {
			t.Errorf("after the late outcome: %+v; want the job still running (b's)", c)
		}
		close(bRelease)
		for end := time.Now().Add(10 * time.Second); count(t, a) != (Counts{}); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("not done: %+v", count(t, a))
			}
		}
		for _, q := range []*Queue{a, b} {
			if err := q.Stop(ctx); err != nil {
				t.Fatal(err)
			}
		}
		var total int
		var who string
		if err := db.Scan(d1.QueryRow(ctx, "SELECT count(*), min(instance) FROM job_runs"), &total, &who); err != nil {
			t.Fatal(err)
		}
		if total != 1 || who != "b" {
			t.Errorf("%d runs done, by %q; want one, by b", total, who)
		}
	})
}

// A job's id is never given to another job: a worker whose lease ran out
// names its claim by (id, attempts) when its late outcome comes.
func TestJobIDsAreNotReused(t *testing.T) {
	twoHandles(t, func(t *testing.T, d, _ *db.DB) {
		ctx := context.Background()
		q := New(d, Options{})
		q.Handle("k", func(context.Context, *Job) error { return nil })
		first, err := q.Add(ctx, "k", nil)
		if err != nil {
			t.Fatal(err)
		}
		if ran, err := q.RunOne(ctx); !ran || err != nil {
			t.Fatalf("RunOne: %v, %v", ran, err)
		}
		second, err := q.Add(ctx, "k", nil)
		if err != nil {
			t.Fatal(err)
		}
		if second == first {
			t.Errorf("the next job got id %d again, the id of the one just done", second)
		}
	})
}
