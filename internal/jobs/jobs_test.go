package jobs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// twoHandles opens the same database twice (two pools, as two instances
// would), on SQLite and, when TUTTI_TEST_POSTGRES is set, on PostgreSQL.
func twoHandles(t *testing.T, fn func(t *testing.T, a, b *db.DB)) {
	t.Helper()
	urls := map[string]string{"sqlite": "sqlite:" + filepath.Join(t.TempDir(), "jobs.db")}
	if base := os.Getenv(dbtest.Env); base != "" {
		urls["postgres"] = dbtest.FreshSchema(t, base)
	}
	for name, u := range urls {
		t.Run(name, func(t *testing.T) {
			a := dbtest.Open(t, u, Migrations)
			b := dbtest.Open(t, u)
			fn(t, a, b)
		})
	}
}

// clock is a settable time for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func count(t *testing.T, q *Queue) Counts {
	t.Helper()
	c, err := q.Counts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// inBubble runs fn on every test database in a synctest bubble: the queue's
// clock (Options.Now defaults to time.Now) and its workers' timers are the
// bubble's fake ones, so hours of backoff pass at once and "not before"
// is exact. The jobs code reads no database clock: every time it compares
// is its own, passed as a parameter. The database is opened inside the
// bubble, so that its connections' channels and timers belong to it.
//
// On PostgreSQL the queries are real network I/O, which is not "durably
// blocking": the fake clock simply does not move while one is in flight,
// which is what these tests want (time passes only when every goroutine
// waits on a timer or a channel).
func inBubble(t *testing.T, fn func(t *testing.T, d *db.DB)) {
	for name, u := range dbtest.URLs(t) {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { fn(t, dbtest.Open(t, u, Migrations)) })
		})
	}
}

func TestClaimExactlyOnceTwoInstances(t *testing.T) {
	twoHandles(t, func(t *testing.T, d1, d2 *db.DB) {
		const n = 300
		var mu sync.Mutex
		runs := map[int]int{}
		var total atomic.Int64
		done := make(chan struct{})
		h := func(ctx context.Context, j *Job) error {
			var p struct{ N int }
			if err := j.Decode(&p); err != nil {
				return err
			}
			mu.Lock()
			runs[p.N]++
			mu.Unlock()
			if total.Add(1) == n {
				close(done)
			}
			return nil
		}
		qs := []*Queue{New(d1, Options{Workers: 4, Poll: 10 * time.Millisecond}), New(d2, Options{Workers: 4, Poll: 10 * time.Millisecond})}
		ctx := context.Background()
		err := d1.WithTx(ctx, func(tx *db.Tx) error {
			for i := range n {
				if _, err := qs[0].Enqueue(ctx, tx, "count", map[string]int{"N": i}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range qs {
			q.Handle("count", h)
			if err := q.Start(); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatalf("ran %d of %d jobs", total.Load(), n)
		}
		for _, q := range qs {
			if err := q.Stop(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for i := range n {
			if runs[i] != 1 {
				t.Errorf("job %d ran %d times; want 1", i, runs[i])
			}
		}
		if c := count(t, qs[0]); c != (Counts{}) {
			t.Errorf("left in the table: %+v; want none", c)
		}
	})
}

func TestRetryBackoffDeadAndRetry(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		clk := &clock{t: time.Unix(1_700_000_000, 0)}
		q := New(d, Options{MaxAttempts: 3, Now: clk.Now, Backoff: func(n int) time.Duration { return time.Duration(n) * time.Minute }})
		fail := true
		var calls int
		q.Handle("flaky", func(ctx context.Context, j *Job) error {
			calls++
			if fail {
				return errors.New("smtp: 451 try later")
			}
			return nil
		})
		if _, err := q.Add(ctx, "flaky", nil); err != nil {
			t.Fatal(err)
		}
		for attempt := 1; attempt <= 3; attempt++ {
			ran, err := q.RunOne(ctx)
			if err != nil || !ran {
				t.Fatalf("attempt %d: ran %v, err %v; want a run", attempt, ran, err)
			}
			if attempt == 3 {
				break
			}
			// Not due again before its backoff (attempt minutes) is over.
			clk.Add(time.Duration(attempt)*time.Minute - time.Second)
			if ran, _ := q.RunOne(ctx); ran {
				t.Fatalf("attempt %d: retried before its backoff", attempt)
			}
			clk.Add(time.Second)
		}
		if c := count(t, q); c != (Counts{Dead: 1}) {
			t.Fatalf("counts %+v; want one dead", c)
		}
		dead, err := q.List(ctx, Dead, 10)
		if err != nil || len(dead) != 1 {
			t.Fatalf("dead list %v, %v; want one", dead, err)
		}
		if dead[0].LastError != "smtp: 451 try later" || dead[0].Attempts != 3 {
			t.Errorf("dead job: error %q after %d attempts; want the handler's error after 3", dead[0].LastError, dead[0].Attempts)
		}
		clk.Add(24 * time.Hour)
		if ran, _ := q.RunOne(ctx); ran {
			t.Fatal("a dead job ran")
		}
		fail = false
		if err := q.Retry(ctx, dead[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := q.Retry(ctx, dead[0].ID); err == nil {
			t.Error("retrying a job that is not dead: no error")
		}
		if ran, err := q.RunOne(ctx); !ran || err != nil {
			t.Fatalf("after retry: ran %v, %v", ran, err)
		}
		if c := count(t, q); c != (Counts{}) || calls != 4 {
			t.Errorf("after retry: %+v and %d calls; want an empty table and 4 calls", c, calls)
		}
	}, Migrations)
}

func TestPermanentErrorGoesDeadAtOnce(t *testing.T) {
	d := dbtest.Open(t, "", Migrations)
	ctx := context.Background()
	q := New(d, Options{})
	q.Handle("bad", func(ctx context.Context, j *Job) error {
		var v int
		return j.Decode(&v) // the payload is an object: permanent
	})
	q.Add(ctx, "bad", map[string]int{"a": 1})
	q.RunOne(ctx)
	if c := count(t, q); c.Dead != 1 {
		t.Errorf("counts %+v; want dead after one attempt", c)
	}
}

func TestLeaseExpiredIsClaimedAgain(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		clk := &clock{t: time.Unix(1_700_000_000, 0)}
		q := New(d, Options{Lease: time.Minute, Now: clk.Now})
		q.Add(ctx, "k", nil)
		j, err := q.claim(ctx) // a worker takes it, then dies
		if err != nil || j == nil {
			t.Fatalf("claim: %v, %v", j, err)
		}
		if again, _ := q.claim(ctx); again != nil {
			t.Fatal("claimed twice within the lease")
		}
		clk.Add(time.Minute + time.Millisecond)
		again, err := q.claim(ctx)
		if err != nil || again == nil || again.ID != j.ID || again.Attempts != 2 {
			t.Fatalf("after the lease: %+v, %v; want job %d at attempt 2", again, err, j.ID)
		}
	}, Migrations)
}

func TestOutboxRolledBackLeavesNoJob(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		q := New(d, Options{})
		boom := errors.New("the change failed")
		err := d.WithTx(ctx, func(tx *db.Tx) error {
			if _, err := q.Enqueue(ctx, tx, "mail", map[string]string{"to": "a@example.com"}); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("got %v; want the change's error", err)
		}
		if c := count(t, q); c != (Counts{}) {
			t.Fatalf("after rollback: %+v; want no job", c)
		}
		d.WithTx(ctx, func(tx *db.Tx) error { _, err := q.Enqueue(ctx, tx, "mail", nil); return err })
		if c := count(t, q); c != (Counts{Ready: 1}) {
			t.Fatalf("after commit: %+v; want one ready job", c)
		}
	}, Migrations)
}

// A failed job is retried by the workers once its backoff is over, not
// before: the running queue (its workers, their poll timer, the default
// clock), not RunOne with a hand-set clock.
func TestWorkersRetryAfterTheBackoffNotBefore(t *testing.T) {
	inBubble(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		const backoff = 10 * time.Minute
		q := New(d, Options{Workers: 2, Poll: 2 * time.Second, Backoff: func(int) time.Duration { return backoff }})
		var calls atomic.Int64
		q.Handle("flaky", func(ctx context.Context, j *Job) error {
			if calls.Add(1) == 1 {
				return errors.New("smtp: 451 try later")
			}
			return nil
		})
		if err := q.Start(); err != nil {
			t.Fatal(err)
		}
		defer q.Stop(ctx)
		start := time.Now()
		if _, err := q.Add(ctx, "flaky", nil); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the wake-up ran it at once, and it failed
		if n := calls.Load(); n != 1 || time.Since(start) != 0 {
			t.Fatalf("%d calls after %v; want 1 at once", n, time.Since(start))
		}
		if c := count(t, q); c != (Counts{Ready: 1}) {
			t.Fatalf("after the failure: %+v; want it ready for a retry", c)
		}
		// The workers poll every 2 s meanwhile; none takes it early.
		time.Sleep(backoff - time.Millisecond)
		synctest.Wait()
		if n := calls.Load(); n != 1 {
			t.Fatalf("%d calls %v after the failure; want no retry before the %v backoff", n, time.Since(start), backoff)
		}
		// Found by the next poll after the backoff.
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if n := calls.Load(); n != 2 {
			t.Fatalf("%d calls %v after the failure; want the retry within a poll of the backoff", n, time.Since(start))
		}
		if c := count(t, q); c != (Counts{}) {
			t.Errorf("after the retry succeeded: %+v; want an empty table", c)
		}
	})
}

// Stop waits for the running job, claiming nothing new meanwhile. In a
// bubble, "Stop is still waiting" is exact (every goroutine is blocked)
// rather than "Stop did not return within some milliseconds".
func TestStopDrainsRunningJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := dbtest.Open(t, "", Migrations)
		ctx := context.Background()
		q := New(d, Options{Workers: 2, Poll: 10 * time.Millisecond})
		started, release := make(chan struct{}), make(chan struct{})
		var finished atomic.Bool
		q.Handle("slow", func(ctx context.Context, j *Job) error {
			close(started)
			<-release
			finished.Store(true)
			return nil
		})
		q.Start()
		q.Add(ctx, "slow", nil)
		<-started
		stopped := make(chan error, 1)
		go func() {
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			stopped <- q.Stop(sctx)
		}()
		synctest.Wait()
		if !q.stopping() {
			t.Fatal("Stop has not begun")
		}
		q.Add(ctx, "slow", nil)
		synctest.Wait() // the wake-up finds no worker claiming
		select {
		case err := <-stopped:
			t.Fatalf("Stop returned (%v) while a job was running", err)
		default:
		}
		close(release)
		if err := <-stopped; err != nil {
			t.Fatalf("Stop: %v", err)
		}
		if !finished.Load() {
			t.Fatal("Stop returned before the job finished")
		}
		if c := count(t, q); c != (Counts{Ready: 1}) {
			t.Errorf("after stop: %+v; want the finished job gone and the new one ready", c)
		}
	})
}

// Past Stop's deadline the running job is cancelled and put back. In a
// bubble the deadline is exact: Stop returns 100 ms after it was called.
func TestStopDeadlinePutsJobBack(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := dbtest.Open(t, "", Migrations)
		ctx := context.Background()
		q := New(d, Options{Workers: 1, Poll: 10 * time.Millisecond})
		started := make(chan struct{})
		q.Handle("stuck", func(ctx context.Context, j *Job) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})
		q.Start()
		q.Add(ctx, "stuck", nil)
		<-started
		sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		begin := time.Now()
		if err := q.Stop(sctx); err == nil {
			t.Error("Stop past its deadline: no error")
		}
		if took := time.Since(begin); took != 100*time.Millisecond {
			t.Errorf("Stop returned after %v; want its 100ms deadline", took)
		}
		list, _ := q.List(ctx, "", 10)
		if len(list) != 1 || list[0].State != Ready || list[0].Attempts != 0 {
			t.Fatalf("after the deadline: %+v; want the job ready again, its attempt not counted", list)
		}
	})
}

func TestDefaultBackoffGrowsWithJitter(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 5 * time.Second, 2: 10 * time.Second, 5: 80 * time.Second, 30: time.Hour} {
		for range 50 {
			if d := DefaultBackoff(n); d < want*3/4 || d > want*5/4 {
				t.Fatalf("DefaultBackoff(%d) = %v; want %v ±25%%", n, d, want)
			}
		}
	}
}

// EnqueueMany writes every job once, in the order given, across its
// statements' boundary (manyRows), in the caller's transaction: rolled
// back with it, it leaves none.
func TestEnqueueManyWritesEachJobOnceInOrder(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		q := New(d, Options{})
		const n = 2*manyRows + 3
		boom := errors.New("the change failed")
		if err := d.WithTx(ctx, func(tx *db.Tx) error {
			if err := q.EnqueueMany(ctx, tx, "note", n, func(i int) any { return i }); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			t.Fatalf("got %v; want the change's error", err)
		}
		if c := count(t, q); c != (Counts{}) {
			t.Fatalf("after rollback: %+v; want no job", c)
		}
		if err := d.WithTx(ctx, func(tx *db.Tx) error {
			return q.EnqueueMany(ctx, tx, "note", n, func(i int) any { return i })
		}); err != nil {
			t.Fatal(err)
		}
		list, err := q.List(ctx, Ready, 2*n)
		if err != nil || len(list) != n {
			t.Fatalf("listed %d ready jobs, %v; want %d", len(list), err, n)
		}
		for k, j := range list { // newest first
			var i int
			if err := j.Decode(&i); err != nil || j.Kind != "note" || i != n-1-k {
				t.Fatalf("job %d: %s %d, %v; want note %d (the order given)", j.ID, j.Kind, i, err, n-1-k)
			}
		}
		// They run: the first one claimed is the first given.
		var first = -1
		q.Handle("note", func(ctx context.Context, j *Job) error { return j.Decode(&first) })
		if ran, err := q.RunOne(ctx); !ran || err != nil || first != 0 {
			t.Errorf("first run: ran %v, %v, payload %d; want 0", ran, err, first)
		}
	}, Migrations)
}
