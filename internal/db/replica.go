package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Querier runs reads: a *DB (the primary; SQLite's read pool), a *Tx, and
// the lag-tolerant reader that Lagging returns.
type Querier interface {
	Query(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) *sql.Row
}

// Lagging returns the reader for reads that tolerate lag: a PostgreSQL
// streaming replica when one is set (AddReplica) and answering, otherwise
// the database itself (on SQLite, its read pool). Never use it for a read
// that decides something (a cap, a uniqueness check, money, authorization,
// anything read before a write): the replica may be seconds behind. A read
// cached under a version must check that the replica has reached that
// version (see AtLeast), or the cache keeps old content under a new key.
//
// When the replica fails with a connection error the read is run on the
// primary, and the replica is left alone for a short back-off (growing to
// a few seconds while it stays down), so that a dead replica costs no
// request a timeout; after the back-off one read tries it again, and reads
// return to it once it answers.
func (db *DB) Lagging() Querier {
	if db.replica == nil {
		return db
	}
	return db.replica
}

// AtLeast returns Lagging's reader if it shows version v or later, read by
// the one-row, one-int64 query q (such as a poll's version column), and the
// primary otherwise: a cache entry made at version v from a replica that
// has not replayed v yet would keep old content under v's key until the
// next change. It costs one small query on the replica, made only when a
// replica is set.
func (db *DB) AtLeast(ctx context.Context, v int64, q string, args ...any) Querier {
	r := db.replica
	if r == nil {
		return db
	}
	if !r.use() {
		r.fellBack.Add(1)
		return db
	}
	var got int64
	err := r.pool.QueryRowContext(ctx, db.Rebind(q), args...).Scan(&got)
	db.count(ctx)
	if !r.settled(ctx, err) || err != nil {
		r.fellBack.Add(1)
		return db
	}
	if got < v {
		r.behind.Add(1)
		return db
	}
	r.served.Add(1)
	return r
}

// AtVersion is AtLeast for a cache entry whose first read shows the version
// itself (a poll's row with its version column), which saves AtLeast's own
// query: read runs on Lagging's reader and returns the version it saw. If
// that is v or later, AtVersion returns that reader for the entry's other
// reads; if it is older, or the row is not there yet, or the replica
// failed, read runs again on the primary, and AtVersion returns the primary
// with that read's error.
func (db *DB) AtVersion(ctx context.Context, v int64, read func(Querier) (int64, error)) (Querier, error) {
	r := db.replica
	if r == nil {
		_, err := read(db)
		return db, err
	}
	if !r.use() {
		r.fellBack.Add(1)
	} else {
		got, err := read(replicaOnly{r})
		switch {
		case err == nil && got >= v:
			r.served.Add(1)
			return r, nil
		case err == nil || errors.Is(err, sql.ErrNoRows) || errors.Is(err, errs.ErrNotFound):
			r.behind.Add(1)
		case ctx.Err() != nil:
			return db, err
		default:
			r.fellBack.Add(1)
		}
	}
	_, err := read(db)
	return db, err
}

// ReplicaStats reports the reads Lagging's reader sent to the replica, those
// it sent to the primary instead (the replica down or failing), and those
// AtLeast and AtVersion sent to the primary because the replica was behind.
func (db *DB) ReplicaStats() (served, fellBack, behind int64) {
	if db.replica == nil {
		return 0, 0, 0
	}
	r := db.replica
	return r.served.Load(), r.fellBack.Load(), r.behind.Load()
}

// replicaConnectTimeout bounds a connection attempt to the replica (unless
// its URL sets connect_timeout): a replica host that does not answer must
// not hold a read for long before it falls back.
const replicaConnectTimeout = 2 * time.Second

// Back-off after a replica failure: the first, and the most while it stays down.
const (
	replicaBackoffMin = 250 * time.Millisecond
	replicaBackoffMax = 5 * time.Second
)

// AddReplica gives a PostgreSQL primary a streaming replica at url for
// Lagging's reads. A replica that does not answer now is not an error: the
// reads go to the primary until it does.
func (db *DB) AddReplica(ctx context.Context, url string) error {
	if db.Dialect != Postgres {
		return errors.New("db: a read replica needs a PostgreSQL primary")
	}
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return fmt.Errorf("db: replica url: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = replicaConnectTimeout
	}
	p := stdlib.OpenDB(*cfg)
	n := max(8, 4*runtime.GOMAXPROCS(0))
	p.SetMaxOpenConns(n)
	p.SetMaxIdleConns(n)
	p.SetConnMaxIdleTime(5 * time.Minute)
	r := &replica{pool: p, db: db, idle: n}
	pctx, cancel := context.WithTimeout(ctx, replicaConnectTimeout)
	defer cancel()
	if err := p.PingContext(pctx); err != nil {
		r.down()
		if db.log != nil {
			db.log.Warn("db: the read replica does not answer; reads go to the primary until it does", "err", err)
		}
	}
	db.replica = r
	return nil
}

// replica is a streaming replica's pool with its health.
type replica struct {
	pool *sql.DB
	db   *DB
	idle int // the pool's idle connections

	mu        sync.Mutex
	downUntil time.Time     // zero: healthy
	backoff   time.Duration // the last back-off
	probing   bool          // one read is trying the replica after its back-off

	served, fellBack, behind atomic.Int64
}

// use reports whether a read should try the replica: it is healthy, or its
// back-off is over and no other read is trying it already.
func (r *replica) use() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.downUntil.IsZero() {
		return true
	}
	if r.probing || time.Now().Before(r.downUntil) {
		return false
	}
	r.probing = true
	return true
}

func (r *replica) up() {
	r.mu.Lock()
	r.downUntil, r.backoff, r.probing = time.Time{}, 0, false
	r.mu.Unlock()
}

func (r *replica) down() {
	// Drop the idle connections: a replica that went away left them broken.
	r.pool.SetMaxIdleConns(0)
	r.pool.SetMaxIdleConns(r.idle)
	r.mu.Lock()
	r.backoff = min(max(2*r.backoff, replicaBackoffMin), replicaBackoffMax)
	r.downUntil, r.probing = time.Now().Add(r.backoff), false
	r.mu.Unlock()
	if r.db.log != nil {
		r.db.log.Warn("db: the read replica failed; reads go to the primary", "retry_in", r.backoff)
	}
}

// settled records the replica's answer err to a read with ctx and reports
// whether it stands (true), or the read must go to the primary (false).
func (r *replica) settled(ctx context.Context, err error) bool {
	switch {
	case err == nil:
		r.up()
		return true
	case ctx.Err() != nil: // the caller gave up: the primary would not help
		r.mu.Lock()
		r.probing = false
		r.mu.Unlock()
		return true
	case connectionError(err):
		r.down()
		return false
	case recoveryConflict(err):
		return false
	default: // the statement's own error: the primary would give it too
		r.up()
		return true
	}
}

// Query runs a read on the replica, or on the primary if it is down.
func (r *replica) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if r.use() {
		rows, err := r.pool.QueryContext(ctx, r.db.Rebind(q), args...)
		if r.settled(ctx, err) {
			r.db.count(ctx)
			r.served.Add(1)
			return rows, translate(err)
		}
	}
	r.fellBack.Add(1)
	return r.db.Query(ctx, q, args...)
}

// QueryRow runs a single-row read on the replica, or on the primary if it
// is down. The row has run its query already (the driver fetches the first
// row with it), so its Err says whether the replica answered: one round
// trip when it does, and the primary's when it does not.
func (r *replica) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	if r.use() {
		row := r.pool.QueryRowContext(ctx, r.db.Rebind(q), args...)
		if r.settled(ctx, row.Err()) {
			r.db.count(ctx)
			r.served.Add(1)
			return row
		}
	}
	r.fellBack.Add(1)
	return r.db.QueryRow(ctx, q, args...)
}

// replicaOnly reads from the replica without falling back, recording its
// health: AtVersion decides where a failed read goes.
type replicaOnly struct{ r *replica }

func (o replicaOnly) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	o.r.db.count(ctx)
	rows, err := o.r.pool.QueryContext(ctx, o.r.db.Rebind(q), args...)
	o.r.settled(ctx, err)
	return rows, translate(err)
}

func (o replicaOnly) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	o.r.db.count(ctx)
	row := o.r.pool.QueryRowContext(ctx, o.r.db.Rebind(q), args...)
	o.r.settled(ctx, row.Err())
	return row
}

// connectionError reports whether err says the server cannot be reached or
// dropped the connection (rather than refusing the statement).
func connectionError(err error) bool {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || pgconn.Timeout(err) {
		return true
	}
	// A connection cut under a read (a host that died, a proxy between
	// that closed it) ends in the middle of the answer.
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return true
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	if errors.As(err, &ce) || errors.As(err, &ne) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// 08: connection exception; 57P01-03: shutting down, crashed, not yet accepting.
		return pe.Code[:2] == "08" || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	// pgx reports a connection it lost mid-read as a plain error that is
	// safe to retry (nothing was sent) or as "conn closed".
	return pgconn.SafeToRetry(err) || err.Error() == "conn closed"
}

// recoveryConflict reports whether a replica cancelled the read because it
// conflicted with the replay of the primary's changes: the primary answers.
func recoveryConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "40001"
}
