package db

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/tutti-dev/tutti/internal/errs"
)

// ErrClosed is returned by Batcher.Do once the batcher has been closed.
var ErrClosed = errs.E(errs.Internal, "The server is shutting down; please try again.")

// Batcher group-commits writes: callers hand it a function to run in a write
// transaction and wait for its commit, while one goroutine runs everything
// that queued up meanwhile in a single transaction. Under load many writes
// share one BEGIN ... COMMIT (and one fsync), instead of each request taking
// the write lock in turn; when idle a write commits at once, alone.
//
// If a function of a batch fails, the batch is rolled back and the others
// are batched again, and the failed one runs afterwards in a transaction of
// its own, so that one bad write fails alone and does not cost the rest of
// its batch a transaction each (a client repeating a refused write would
// otherwise take group commit away from everyone writing meanwhile). After
// a few such rounds, or when the commit itself fails, each write runs alone.
// Functions must therefore have no effects outside the transaction and must
// set (not accumulate) what they capture.
type Batcher struct {
	db   *DB
	log  *slog.Logger
	id   func(context.Context) string
	max  int
	jobs chan *job

	mu     sync.RWMutex // guards closed against Do sending on jobs
	closed bool
	done   chan struct{}

	batches, writes atomic.Int64 // transactions committed, and the writes in them
}

type job struct {
	ctx context.Context
	fn  func(ctx context.Context, tx *Tx) error
	err chan error
}

// NewBatcher starts a batcher that commits up to max functions per transaction.
func (db *DB) NewBatcher(max int) *Batcher {
	if max < 1 {
		max = 1
	}
	b := &Batcher{db: db, log: db.log, id: db.requestID, max: max, jobs: make(chan *job, 4*max), done: make(chan struct{})}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if b.id == nil {
		b.id = func(context.Context) string { return "" }
	}
	go b.loop()
	return b
}

// Do runs fn in a write transaction shared with other writes and returns once
// that transaction committed (nil) or fn's own error. A caller that gives up
// (ctx done) before its write was started withdraws it; once started, the
// write is committed even if the caller has left.
func (b *Batcher) Do(ctx context.Context, fn func(ctx context.Context, tx *Tx) error) error {
	j := &job{ctx: ctx, fn: fn, err: make(chan error, 1)}
	b.mu.RLock()
	if b.closed {
		b.mu.RUnlock()
		return ErrClosed
	}
	select {
	case b.jobs <- j:
	case <-ctx.Done():
		b.mu.RUnlock()
		return ctx.Err()
	}
	b.mu.RUnlock()
	return <-j.err
}

// Stats returns the transactions committed and the writes they held.
func (b *Batcher) Stats() (batches, writes int64) { return b.batches.Load(), b.writes.Load() }

// Close stops taking writes, commits every write already queued, and returns
// when the last one is done (call it on graceful shutdown, after the HTTP
// server stopped and before the database closes).
func (b *Batcher) Close() {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.jobs)
	}
	b.mu.Unlock()
	<-b.done
}

func (b *Batcher) loop() {
	defer close(b.done)
	batch := make([]*job, 0, b.max)
	for j := range b.jobs {
		batch = append(batch[:0], j)
	fill:
		for len(batch) < b.max {
			select {
			case j, ok := <-b.jobs:
				if !ok {
					break fill
				}
				batch = append(batch, j)
			default:
				break fill
			}
		}
		b.commit(batch)
	}
}

// rounds is how many times a batch is tried again without the write that
// failed it, before its writes run each alone.
const rounds = 4

// commit runs batch in one transaction; a write that fails it is taken out
// and run alone after the others (see Batcher).
func (b *Batcher) commit(batch []*job) {
	live := batch[:0:0]
	for _, j := range batch {
		if err := j.ctx.Err(); err != nil {
			b.log.Debug("db: batched write withdrawn by its caller", "id", b.id(j.ctx), "err", err)
			j.err <- err // withdrawn before it started
			continue
		}
		live = append(live, j)
	}
	ctx := context.Background() // started writes finish even if their caller left
	var later []*job            // writes that failed a batch, to run alone
	for round := 0; len(live) > 1 && round < rounds; round++ {
		failed, err := b.together(ctx, live)
		if err == nil {
			live = live[:0]
			break
		}
		ids := make([]string, len(live))
		for i, j := range live {
			ids[i] = b.id(j.ctx)
		}
		b.log.Debug("db: batch rolled back", "writes", len(live), "ids", ids, "failed", failed, "err", err)
		if failed < 0 { // not one write's failure: each runs alone
			break
		}
		later = append(later, live[failed])
		live = slices.Delete(live, failed, failed+1)
	}
	for _, j := range append(live, later...) {
		b.alone(ctx, j)
	}
}

// together runs jobs in one transaction and, should it fail, returns the
// index of the job that failed it, or -1 if none did (the transaction's
// begin or commit failed).
func (b *Batcher) together(ctx context.Context, jobs []*job) (int, error) {
	of := make([]context.Context, len(jobs))
	for i, j := range jobs {
		of[i] = j.ctx
	}
	err := b.db.withTx(ctx, of, func(tx *Tx) error {
		for i, j := range jobs {
			if err := j.fn(ctx, tx); err != nil {
				return &failedAt{i, err}
			}
		}
		return nil
	})
	if err != nil {
		if f, ok := errors.AsType[*failedAt](err); ok {
			return f.i, f.err
		}
		return -1, err // the begin or the commit failed
	}
	b.batches.Add(1)
	b.writes.Add(int64(len(jobs)))
	for _, j := range jobs {
		j.err <- nil
	}
	return -1, nil
}

// failedAt is the error of a batch's write i (withTx sees through it to
// retry a busy database).
type failedAt struct {
	i   int
	err error
}

func (f *failedAt) Error() string { return f.err.Error() }
func (f *failedAt) Unwrap() error { return f.err }

// alone runs j in a transaction of its own and hands it the outcome.
func (b *Batcher) alone(ctx context.Context, j *job) {
	err := b.db.withTx(ctx, []context.Context{j.ctx}, func(tx *Tx) error {
		return j.fn(ctx, tx)
	})
	switch {
	case err == nil:
		b.batches.Add(1)
		b.writes.Add(1)
	case errs.KindOf(err) == errs.Internal:
		b.log.Warn("db: batched write failed", "id", b.id(j.ctx), "err", err)
	default: // refused (not found, conflict, ...): the caller reports it
		b.log.Debug("db: batched write refused", "id", b.id(j.ctx), "err", err)
	}
	j.err <- err
}
