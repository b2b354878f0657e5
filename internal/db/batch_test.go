package db_test

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

func TestBatcherCommitsEveryWriteAndIsolatesFailures(t *testing.T) {
	for name, u := range dbtest.URLs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			d := dbtest.Open(t, u)
			if _, err := d.SQL().ExecContext(ctx, "CREATE TABLE batch_t (n INTEGER PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			b := d.NewBatcher(64)
			const writers = 400
			var wg sync.WaitGroup
			errc := make([]error, writers)
			for i := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					n := i
					if i%50 == 7 {
						n = -1 // every one of these collides with the first -1
					}
					errc[i] = b.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
						_, err := tx.Exec(ctx, "INSERT INTO batch_t (n) VALUES (?)", n)
						return err
					})
				}()
			}
			wg.Wait()
			b.Close()
			var ok, conflicts int
			for _, err := range errc {
				switch {
				case err == nil:
					ok++
				case errors.Is(err, errs.ErrConflict):
					conflicts++
				default:
					t.Fatalf("write failed: %v", err)
				}
			}
			// 8 writers use -1: one lands, seven conflict.
			if ok != writers-7 || conflicts != 7 {
				t.Errorf("got %d ok and %d conflicts; want %d and 7", ok, conflicts, writers-7)
			}
			var rows int
			if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM batch_t"), &rows); err != nil {
				t.Fatal(err)
			}
			if rows != ok {
				t.Errorf("got %d rows; want %d (one per successful write)", rows, ok)
			}
			batches, writes := b.Stats()
			if writes != int64(ok) || batches > writes {
				t.Errorf("stats: %d batches, %d writes; want %d writes in at most as many batches", batches, writes, ok)
			}
			if err := b.Do(ctx, func(context.Context, *db.Tx) error { return nil }); !errors.Is(err, db.ErrClosed) {
				t.Errorf("Do after Close: got %v; want ErrClosed", err)
			}
		})
	}
}

// TestBatcherBatchesAgainWithoutARefusedWrite: writes queued behind a busy
// batcher go in one transaction; one that is refused (a taken key) rolls
// that batch back, and the others commit together in one more transaction,
// not one each, while the refused ones fail alone. Two writes of the same
// new key in one batch: the first lands, the second is refused.
func TestBatcherBatchesAgainWithoutARefusedWrite(t *testing.T) {
	for name, u := range dbtest.URLs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			d := dbtest.Open(t, u)
			insert := keyTable(t, d, "batch_r", "(1), (2)")
			b := d.NewBatcher(64)
			defer b.Close()
			// The loop holds a first write until the rest have queued.
			release, started := make(chan struct{}), make(chan struct{})
			first := make(chan error, 1)
			go func() {
				first <- b.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
					close(started)
					<-release
					return insert(100)(ctx, tx)
				})
			}()
			<-started
			// 1 and 2 are taken; 500 is new twice; the rest are new.
			ns := []int64{10, 11, 1, 12, 500, 13, 14, 2, 15, 500, 16, 17}
			errc := make([]error, len(ns))
			var wg sync.WaitGroup
			for i, n := range ns {
				wg.Add(1)
				go func() { defer wg.Done(); errc[i] = b.Do(ctx, insert(n)) }()
			}
			for db.Queued(b) < len(ns) {
				runtime.Gosched()
			}
			close(release)
			wg.Wait()
			if err := <-first; err != nil {
				t.Fatal(err)
			}
			var ok, refused, fivehundred int
			for i, err := range errc {
				switch {
				case err == nil:
					ok++
					if ns[i] == 500 {
						fivehundred++
					}
				case errors.Is(err, errs.ErrConflict):
					refused++
				default:
					t.Fatalf("write of %d: %v", ns[i], err)
				}
			}
			if ok != len(ns)-3 || refused != 3 || fivehundred != 1 {
				t.Errorf("%d ok (%d of them 500), %d refused; want %d ok (one 500), 3 refused", ok, fivehundred, refused, len(ns)-3)
			}
			// The held write alone, then the nine in one transaction.
			if batches, writes := b.Stats(); batches != 2 || writes != int64(ok)+1 {
				t.Errorf("stats: %d transactions for %d writes; want 2 for %d", batches, writes, ok+1)
			}
			var rows int
			if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM batch_r"), &rows); err != nil {
				t.Fatal(err)
			}
			if rows != 2+1+ok {
				t.Errorf("%d rows; want %d", rows, 2+1+ok)
			}
		})
	}
}

// keyTable makes table, a column n of unique keys holding taken (SQL
// VALUES rows), and returns the write inserting n into it.
func keyTable(tb testing.TB, d *db.DB, table, taken string) func(n int64) func(context.Context, *db.Tx) error {
	tb.Helper()
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE " + table + " (n INTEGER PRIMARY KEY)", "INSERT INTO " + table + " (n) VALUES " + taken} {
		if _, err := d.SQL().ExecContext(ctx, q); err != nil {
			tb.Fatal(err)
		}
	}
	return func(n int64) func(context.Context, *db.Tx) error {
		return func(ctx context.Context, tx *db.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO "+table+" (n) VALUES (?)", n)
			return err
		}
	}
}

func TestBatcherCloseDrainsQueuedWrites(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t, "")
	if _, err := d.SQL().ExecContext(ctx, "CREATE TABLE batch_d (n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	b := d.NewBatcher(16)
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := b.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
				_, err := tx.Exec(ctx, "INSERT INTO batch_d (n) VALUES (?)", i)
				return err
			})
			if err == nil {
				mu.Lock()
				accepted++
				mu.Unlock()
			} else if !errors.Is(err, db.ErrClosed) {
				t.Errorf("write: %v", err)
			}
		}()
	}
	b.Close() // races the writers: each is either committed or refused, never lost
	wg.Wait()
	var rows int
	if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM batch_d"), &rows); err != nil {
		t.Fatal(err)
	}
	if rows != accepted {
		t.Errorf("got %d rows; want %d (every accepted write committed)", rows, accepted)
	}
}

func TestBatcherLogsCarryTheRequestID(t *testing.T) {
	ctx := context.Background()
	d := dbtest.Open(t, "")
	var buf syncBuffer
	d.SetLog(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), web.RequestID)
	if _, err := d.SQL().ExecContext(ctx, "CREATE TABLE batch_l (n INTEGER PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	b := d.Batch()
	if d.Batch() != b {
		t.Fatal("Batch made a second batcher; want one per database")
	}
	err := b.Do(web.ContextWithRequestID(ctx, "req-42"), func(ctx context.Context, tx *db.Tx) error {
		_, err := tx.Exec(ctx, "INSERT INTO batch_nope (n) VALUES (1)") // no such table: an internal error
		return err
	})
	if err == nil {
		t.Fatal("a write into a missing table succeeded")
	}
	d.CloseBatch()
	if got := buf.String(); !strings.Contains(got, "db: batched write failed") || !strings.Contains(got, "id=req-42") {
		t.Errorf("log %q; want the failed write's line with id=req-42", got)
	}
	if err := b.Do(ctx, func(context.Context, *db.Tx) error { return nil }); !errors.Is(err, db.ErrClosed) {
		t.Errorf("Do after CloseBatch: %v; want ErrClosed", err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAfterCommitRunsOnceCommitted: a transaction's AfterCommit functions
// run once it committed and before the writer returns, never for one rolled
// back; in a batch that fails and is run again write by write, the good
// write's function runs once (from the transaction that committed it) and
// the bad one's never.
func TestAfterCommitRunsOnceCommitted(t *testing.T) {
	for name, u := range dbtest.URLs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			d := dbtest.Open(t, u)
			if _, err := d.SQL().ExecContext(ctx, "CREATE TABLE after_t (n INTEGER PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			ran := map[int]int{}
			insert := func(n, tag int) func(ctx context.Context, tx *db.Tx) error {
				return func(ctx context.Context, tx *db.Tx) error {
					tx.AfterCommit(func() {
						var seen int // the row is there when the function runs
						if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM after_t WHERE n = ?", n), &seen); err != nil || seen != 1 {
							t.Errorf("write %d: after its commit the row count is %d (%v)", tag, seen, err)
						}
						mu.Lock()
						ran[tag]++
						mu.Unlock()
					})
					_, err := tx.Exec(ctx, "INSERT INTO after_t (n) VALUES (?)", n)
					return err
				}
			}
			if err := d.WithTx(ctx, func(tx *db.Tx) error { return insert(1, 1)(ctx, tx) }); err != nil {
				t.Fatal(err)
			}
			if ran[1] != 1 {
				t.Fatalf("a committed transaction's function ran %d times before WithTx returned; want 1", ran[1])
			}
			boom := errors.New("boom")
			if err := d.WithTx(ctx, func(tx *db.Tx) error {
				tx.AfterCommit(func() { t.Error("a rolled-back transaction's function ran") })
				return boom
			}); !errors.Is(err, boom) {
				t.Fatalf("rolled back: %v", err)
			}
			// A batch of two: 1 again collides, so the batch rolls back and
			// each runs alone.
			b := d.NewBatcher(8)
			defer b.Close()
			var wg sync.WaitGroup
			errc := make([]error, 2)
			for i, w := range []func(ctx context.Context, tx *db.Tx) error{insert(2, 2), insert(1, 3)} {
				wg.Add(1)
				go func() { defer wg.Done(); errc[i] = b.Do(ctx, w) }()
			}
			wg.Wait()
			mu.Lock()
			defer mu.Unlock()
			if errc[0] != nil || errc[1] == nil {
				t.Fatalf("batch: %v, %v; want the second refused", errc[0], errc[1])
			}
			if ran[2] != 1 || ran[3] != 0 {
				t.Errorf("after the batch: the good write's function ran %d times, the refused one's %d; want 1 and 0", ran[2], ran[3])
			}
		})
	}
}

// BenchmarkBatcher: 64 writers insert new rows through the batcher, alone
// (quiet) and while one client repeats a write that is always refused (a
// taken key), as a script posting to a closed poll would. Reports the
// transactions committed per write: what the refused writes cost the
// others' group commit.
func BenchmarkBatcher(b *testing.B) {
	for _, name := range []string{"quiet", "refused"} {
		b.Run(name, func(b *testing.B) { benchmarkBatcher(b, name == "refused") })
	}
}

func benchmarkBatcher(b *testing.B, refusing bool) {
	ctx := context.Background()
	d := dbtest.Open(b, "")
	insert := keyTable(b, d, "batch_b", "(-1)")
	bt := d.NewBatcher(64)
	defer bt.Close()
	stop := make(chan struct{})
	hostile := make(chan int, 1)
	if refusing {
		go func() {
			refused := 0
			for {
				select {
				case <-stop:
					hostile <- refused
					return
				default:
				}
				if err := bt.Do(ctx, insert(-1)); errors.Is(err, errs.ErrConflict) {
					refused++
				}
			}
		}()
	} else {
		hostile <- 0
	}
	var next atomic.Int64
	b.ResetTimer()
	var wg sync.WaitGroup
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					return
				}
				if err := bt.Do(ctx, insert(n)); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(stop)
	refused := <-hostile
	batches, writes := bt.Stats()
	b.ReportMetric(float64(batches)/float64(writes), "tx/write")
	b.ReportMetric(float64(refused)/float64(b.N), "refused/write")
}
