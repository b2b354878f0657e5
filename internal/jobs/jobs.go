// Package jobs is tutti's durable background work and its transactional
// outbox: a job is a row of the jobs table, written with Enqueue in the same
// database transaction as the change it follows, so that neither can happen
// without the other. Workers in every instance claim ready rows, run the
// handler registered for their kind, and delete them once done.
//
// Claiming: on PostgreSQL a row is taken with FOR UPDATE SKIP LOCKED, so that
// workers of many instances never take the same job and never wait on each
// other; on SQLite the claim runs through the single write connection (BEGIN
// IMMEDIATE), which serializes claims in the one process that owns the file.
// A claimed job carries a lease (locked_until): if its worker dies, the job is
// claimed again once the lease ran out. Delivery is therefore at least once;
// handlers must tolerate running twice (mail is sent at least once).
//
// A failed job is retried with exponential backoff and jitter; after its
// maximum attempts it is "dead": kept, with its last error, for an operator
// to see and retry (the /ops/jobs page, `tutti jobs`).
//
// Workers are woken through the bus (internal/pubsub) when a job is
// enqueued anywhere, and poll as a fallback. Stop drains: no new claims, and
// the running jobs finish within the deadline; a job cut short is put back.
//
// Use it for work that must follow a committed change but may be slow or
// fail and must not be lost: mail (internal/mail is built on it), calls to
// other services, heavy processing of an upload. Enqueue it in the change's
// transaction, Notify after the commit, and make the handler idempotent.
// Work that may be lost (a cache warm-up, a live event) does not belong
// here; nor does a write burst, which db's Batcher commits in groups.
//
// Why rows and not JetStream work queues: a JetStream publish cannot join a
// SQL transaction, so "write the change and its side effect atomically"
// would need an outbox table anyway, plus a relay from it into the stream.
// Rows are the outbox and the queue at once, the same code on SQLite
// (embedded) and PostgreSQL (cluster), and what an operator inspects is plain
// SQL. NATS only carries the wake-ups, which may be lost without harm.
package jobs

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/web"
)

//go:embed migrations
var migrations embed.FS

// Migrations create the jobs table (core, run after auth's).
var Migrations = db.EmbeddedMigrations("jobs", migrations)

// States of a job.
const (
	Ready   = "ready"
	Running = "running"
	Dead    = "dead"
)

// WakeSubject is the bus subject that tells workers a job is ready.
const WakeSubject = "tutti.jobs.wake"

// Job is one unit of background work.
type Job struct {
	ID          int64
	Kind        string
	Payload     []byte // JSON
	State       string
	Attempts    int // including the current one while running
	MaxAttempts int
	RunAt       time.Time
	LastError   string
	RequestID   string // of the request that enqueued it
	CreatedAt   time.Time
}

// Decode unmarshals the payload into v.
func (j *Job) Decode(v any) error {
	if err := json.Unmarshal(j.Payload, v); err != nil {
		return Permanent(fmt.Errorf("jobs: %s payload: %w", j.Kind, err))
	}
	return nil
}

// Handler runs a job. Its ctx carries the enqueuing request's id (see
// web.RequestID) and ends at the lease or at the shutdown deadline.
type Handler func(ctx context.Context, j *Job) error

// permanent marks an error that retrying cannot fix.
type permanent struct{ err error }

func (p permanent) Error() string { return p.err.Error() }
func (p permanent) Unwrap() error { return p.err }

// Permanent wraps err so that the job goes dead at once instead of retrying.
func Permanent(err error) error { return permanent{err} }

// Options tune a Queue; zero fields take the defaults.
type Options struct {
	Workers     int                             // handlers running at once in this process (4)
	Lease       time.Duration                   // how long a claim holds before another worker may retry it (5 min)
	Poll        time.Duration                   // fallback poll interval when no wake-up comes (2 s)
	MaxAttempts int                             // attempts before a job is dead (8)
	Backoff     func(attempt int) time.Duration // delay after the attempt-th failure (exponential, jittered)
	Bus         *pubsub.Bus                     // wake-ups across instances; nil: local only
	Log         *slog.Logger
	Now         func() time.Time
}

// DefaultBackoff waits 5 s after the first failure, doubling up to an hour,
// each delay jittered by ±25 % so that failed jobs do not retry in step.
func DefaultBackoff(attempt int) time.Duration {
	d := 5 * time.Second << min(max(attempt-1, 0), 10)
	d = min(d, time.Hour)
	return time.Duration(float64(d) * (0.75 + rand.Float64()/2))
}

// Queue enqueues jobs and runs this process's workers.
type Queue struct {
	db   *db.DB
	o    Options
	log  *slog.Logger
	wake chan struct{}

	mu       sync.Mutex
	handlers map[string]Handler

	startOnce sync.Once
	stop      chan struct{} // closed: claim no more
	stopOnce  sync.Once
	hctx      context.Context // handlers' context: cancelled past the shutdown deadline
	hcancel   context.CancelFunc
	wg        sync.WaitGroup
	unsub     func()
}

// New makes a queue over d; Start runs its workers.
func New(d *db.DB, o Options) *Queue {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Lease <= 0 {
		o.Lease = 5 * time.Minute
	}
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = 8
	}
	if o.Backoff == nil {
		o.Backoff = DefaultBackoff
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	q := &Queue{db: d, o: o, log: o.Log, wake: make(chan struct{}, 1), handlers: map[string]Handler{}, stop: make(chan struct{})}
	q.hctx, q.hcancel = context.WithCancel(context.Background())
	return q
}

// Handle registers the handler of kind (at start-up, before Start).
func (q *Queue) Handle(kind string, h Handler) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.handlers[kind] = h
}

func (q *Queue) handler(kind string) Handler {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.handlers[kind]
}

func ms(t time.Time) int64 { return t.UnixMilli() }

// Enqueue writes a job of kind with payload (marshalled to JSON) in tx, to run
// now: it exists if and only if tx commits. Call Notify after the commit to
// wake the workers at once (otherwise they find it at their next poll).
func (q *Queue) Enqueue(ctx context.Context, tx *db.Tx, kind string, payload any) (int64, error) {
	return q.EnqueueAt(ctx, tx, kind, payload, time.Time{})
}

// EnqueueAt is Enqueue for a job that must not run before at (zero: now).
func (q *Queue) EnqueueAt(ctx context.Context, tx *db.Tx, kind string, payload any, at time.Time) (int64, error) {
	b, err := json.Marshal(payload)
	if err != nil {
		return 0, fmt.Errorf("jobs: enqueue %s: %w", kind, err)
	}
	now := q.o.Now()
	if at.IsZero() {
		at = now
	}
	var id int64
	err = db.Scan(tx.QueryRow(ctx, `INSERT INTO jobs (kind, payload, state, attempts, max_attempts, run_at, request_id, created_at, updated_at)
		VALUES (?, ?, 'ready', 0, ?, ?, ?, ?, ?) RETURNING id`,
		kind, string(b), q.o.MaxAttempts, ms(at), web.RequestID(ctx), ms(now), ms(now)), &id)
	if err != nil {
		return 0, fmt.Errorf("jobs: enqueue %s: %w", kind, err)
	}
	return id, nil
}

// manyRows is how many jobs one statement of EnqueueMany writes: seven
// parameters each, well under SQLite's 32,766 and PostgreSQL's 65,535.
const manyRows = 500

// EnqueueMany writes n jobs of kind in tx, to run now, payload(i) the i-th
// (marshalled to JSON, one at a time), manyRows a statement: thousands of
// jobs that follow one change (a mail to each of an event's runners) cost
// a few statements, not thousands. They run in the order given.
func (q *Queue) EnqueueMany(ctx context.Context, tx *db.Tx, kind string, n int, payload func(i int) any) error {
	now := ms(q.o.Now())
	rid := web.RequestID(ctx)
	args := make([]any, 0, 7*min(n, manyRows))
	for start := 0; start < n; start += manyRows {
		rows := min(n-start, manyRows)
		args = args[:0]
		for i := start; i < start+rows; i++ {
			b, err := json.Marshal(payload(i))
			if err != nil {
				return fmt.Errorf("jobs: enqueue %s: %w", kind, err)
			}
			args = append(args, kind, string(b), q.o.MaxAttempts, now, rid, now, now)
		}
		// Each row count is its own statement text: two at most a call.
		if _, err := tx.Exec(ctx, `INSERT INTO jobs (kind, payload, state, attempts, max_attempts, run_at, request_id, created_at, updated_at)
			VALUES `+strings.Repeat("(?, ?, 'ready', 0, ?, ?, ?, ?, ?), ", rows-1)+`(?, ?, 'ready', 0, ?, ?, ?, ?, ?)`, args...); err != nil {
			return fmt.Errorf("jobs: enqueue %s: %w", kind, err)
		}
	}
	return nil
}

// Add enqueues one job in a transaction of its own and wakes the workers.
func (q *Queue) Add(ctx context.Context, kind string, payload any) (int64, error) {
	var id int64
	err := q.db.WithTx(ctx, func(tx *db.Tx) error {
		var err error
		id, err = q.Enqueue(ctx, tx, kind, payload)
		return err
	})
	if err == nil {
		q.Notify()
	}
	return id, err
}

// Notify wakes a worker here and, through the bus, in every instance.
func (q *Queue) Notify() {
	q.poke()
	if q.o.Bus != nil {
		if err := q.o.Bus.Publish(WakeSubject, nil); err != nil {
			q.log.Debug("jobs: wake-up not sent", "err", err)
		}
	}
}

func (q *Queue) poke() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Start runs the workers until Stop.
func (q *Queue) Start() error {
	var err error
	q.startOnce.Do(func() {
		if q.o.Bus != nil {
			q.unsub, err = q.o.Bus.Subscribe(WakeSubject, func(string, []byte) { q.poke() })
			if err != nil {
				return
			}
		}
		for range q.o.Workers {
			q.wg.Add(1)
			go q.worker()
		}
	})
	return err
}

// Stop stops claiming and waits for the running jobs until ctx is done; then
// it cancels them, and each job cut short goes back to ready (its attempt not
// counted) for another instance or the next start.
func (q *Queue) Stop(ctx context.Context) error {
	q.stopOnce.Do(func() { // Serve and Close both stop: the first does it
		close(q.stop)
		if q.unsub != nil {
			q.unsub()
		}
	})
	done := make(chan struct{})
	go func() { q.wg.Wait(); close(done) }()
	select {
	case <-done:
		q.hcancel()
		return nil
	case <-ctx.Done():
	}
	q.hcancel()
	select { // a handler that ignores its context is not waited for long
	case <-done:
	case <-time.After(time.Second):
		return fmt.Errorf("jobs: running jobs ignored the shutdown deadline; their leases will run out: %w", ctx.Err())
	}
	return fmt.Errorf("jobs: running jobs cut short at the shutdown deadline: %w", ctx.Err())
}

func (q *Queue) stopping() bool {
	select {
	case <-q.stop:
		return true
	default:
		return false
	}
}

func (q *Queue) worker() {
	defer q.wg.Done()
	t := time.NewTimer(0)
	defer t.Stop()
	for !q.stopping() {
		j, err := q.claim(db.Uncounted(context.Background()))
		if err != nil {
			q.log.Warn("jobs: claim", "err", err)
		}
		if j != nil {
			q.poke() // there may be more: let another worker look
			q.run(j)
			continue
		}
		t.Reset(q.o.Poll)
		select {
		case <-q.stop:
			return
		case <-q.wake:
		case <-t.C:
		}
	}
}

// RunOne claims and runs one job if one is due; it reports whether it ran
// one (for tools and tests; workers do this in a loop).
func (q *Queue) RunOne(ctx context.Context) (bool, error) {
	j, err := q.claim(ctx)
	if err != nil || j == nil {
		return false, err
	}
	q.run(j)
	return true, nil
}

// run calls the handler and records the outcome.
func (q *Queue) run(j *Job) {
	ctx, cancel := context.WithTimeout(web.ContextWithRequestID(q.hctx, j.RequestID), q.o.Lease)
	defer cancel()
	log := q.log.With("job", j.ID, "kind", j.Kind, "attempt", j.Attempts, "id", j.RequestID)
	var err error
	if j.Attempts > j.MaxAttempts { // its leases ran out: workers died on it
		err = Permanent(errors.New("jobs: abandoned by its workers too many times"))
	} else if h := q.handler(j.Kind); h == nil {
		err = fmt.Errorf("jobs: no handler for kind %q", j.Kind)
	} else {
		err = call(ctx, h, j)
	}
	bg := db.Uncounted(context.Background())
	now := q.o.Now()
	switch {
	case err == nil:
		_, err = q.db.Exec(bg, "DELETE FROM jobs WHERE id = ? AND state = 'running' AND attempts = ?", j.ID, j.Attempts)
		if err != nil {
			log.Error("jobs: done, but not recorded", "err", err)
		}
		return
	case q.hctx.Err() != nil: // cut short by shutdown: not the job's fault
		log.Warn("jobs: cut short by shutdown; put back", "err", err)
		_, err = q.db.Exec(bg, `UPDATE jobs SET state = 'ready', attempts = attempts - 1, locked_until = 0, run_at = ?, updated_at = ?
			WHERE id = ? AND state = 'running' AND attempts = ?`, ms(now), ms(now), j.ID, j.Attempts)
	case j.Attempts >= j.MaxAttempts || errors.As(err, new(permanent)):
		log.Error("jobs: dead", "err", err)
		_, err = q.db.Exec(bg, `UPDATE jobs SET state = 'dead', locked_until = 0, last_error = ?, updated_at = ?
			WHERE id = ? AND state = 'running' AND attempts = ?`, errText(err), ms(now), j.ID, j.Attempts)
	default:
		next := now.Add(q.o.Backoff(j.Attempts))
		log.Warn("jobs: failed; will retry", "err", err, "at", next.Format(time.RFC3339))
		_, err = q.db.Exec(bg, `UPDATE jobs SET state = 'ready', locked_until = 0, run_at = ?, last_error = ?, updated_at = ?
			WHERE id = ? AND state = 'running' AND attempts = ?`, ms(next), errText(err), ms(now), j.ID, j.Attempts)
	}
	if err != nil {
		log.Error("jobs: outcome not recorded", "err", err)
	}
}

// call runs h, turning a panic into an error.
func call(ctx context.Context, h Handler, j *Job) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("jobs: panic: %v", p)
		}
	}()
	return h(ctx, j)
}

func errText(err error) string {
	s := err.Error()
	if len(s) > 2000 {
		s = s[:2000]
	}
	return s
}

// claim takes the next due job (or one whose lease ran out), or returns nil.
func (q *Queue) claim(ctx context.Context) (*Job, error) {
	now := ms(q.o.Now())
	lock := ""
	switch q.db.Dialect {
	case db.Postgres:
		lock = " FOR UPDATE SKIP LOCKED"
	case db.SQLite:
		// BEGIN IMMEDIATE on the single write connection: claims are serial.
	}
	var j Job
	var runAt, created int64
	// Two queues, each read in its index's order (jobs_lease, jobs_claim):
	// first a job whose lease ran out (its worker died: rare, and older
	// than anything due now), then the next due job. One query over both
	// (an OR, ordered by run_at) sorted every due job at each claim: with
	// 23,000 confirmation mails queued after a race's opening, a tenth of
	// the server's core.
	err := q.db.WithTx(ctx, func(tx *db.Tx) error {
		for _, next := range []string{
			`SELECT id FROM jobs WHERE state = 'running' AND locked_until < ? ORDER BY locked_until, id LIMIT 1`,
			`SELECT id FROM jobs WHERE state = 'ready' AND run_at <= ? ORDER BY run_at, id LIMIT 1`,
		} {
			err := db.Scan(tx.QueryRow(ctx, `UPDATE jobs SET state = 'running', attempts = attempts + 1, locked_until = ?, updated_at = ?
				WHERE id = (`+next+lock+`)
				RETURNING id, kind, payload, state, attempts, max_attempts, run_at, last_error, request_id, created_at`,
				now+q.o.Lease.Milliseconds(), now, now),
				&j.ID, &j.Kind, &j.Payload, &j.State, &j.Attempts, &j.MaxAttempts, &runAt, &j.LastError, &j.RequestID, &created)
			if !errors.Is(err, errs.ErrNotFound) {
				return err
			}
		}
		return errs.ErrNotFound
	})
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("jobs: claim: %w", err)
	}
	j.RunAt, j.CreatedAt = time.UnixMilli(runAt), time.UnixMilli(created)
	return &j, nil
}
