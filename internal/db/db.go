// Package db opens tutti's database, SQLite (embedded mode) or PostgreSQL
// (cluster mode), behind one small API over database/sql.
//
// SQL is written with ? placeholders and rebound to $n for PostgreSQL;
// differences between the dialects are explicit at the call site
// (switch db.Dialect). SQLite gets a one-connection write pool (BEGIN
// IMMEDIATE, busy retried) and a separate read pool; PostgreSQL uses one pool.
// Every statement is counted, so tests can prove that a page costs a fixed
// number of queries.
//
// Every app's store, and nothing else in an app, uses it: Query, QueryRow
// and Exec for reads and single statements, WithTx for a write of several
// statements (retried when busy, so it must have no outside effects), Scan
// for ErrNotFound and the driver's errors as kinds, Cursor and Trim for
// keyset pagination, Batch for a burst of small writes that may share a
// commit, CopyFrom for bulk seeding, and Migrations for the app's embedded
// SQL of both dialects. Lagging (and AtLeast, AtVersion) is the reader for reads that
// tolerate lag, a PostgreSQL streaming replica when one is set (AddReplica),
// falling back to the primary while it fails.
package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers "pgx"
	_ "modernc.org/sqlite"             // registers "sqlite"
)

// Dialect names the SQL engine behind a DB.
type Dialect string

// The dialects tutti runs on.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is an open database. It is safe for concurrent use.
type DB struct {
	Dialect  Dialect
	read     *sql.DB
	write    *sql.DB
	replica  *replica // reads that tolerate lag (AddReplica); nil: none
	prepared *stmts   // the read pool's statements, kept prepared (SQLite); nil: none
	txPrep   *txStmts // the write transactions' statements, kept prepared (SQLite); nil: none
	queries  atomic.Int64
	txs      atomic.Int64 // write transactions begun (BEGIN ... COMMIT), counted as queries is
	rebinds  sync.Map     // query -> rebound query (PostgreSQL)

	log       *slog.Logger                 // for the batcher; SetLog
	requestID func(context.Context) string // the request id a write's ctx carries
	batchOnce sync.Once
	batch     *Batcher

	keysPruned atomic.Int64 // when request keys were last pruned (Unix seconds)

	checkpoints *checkpointer // SQLite's, off the writer's commits; nil: none
	others      others        // OnOthers' watcher of other processes' commits (SQLite)
}

// SetLog gives the database a logger and a way to read a request id from a
// context, which the batcher's log lines then carry. Call it right after
// Open, before Batch.
func (db *DB) SetLog(log *slog.Logger, requestID func(context.Context) string) {
	db.log, db.requestID = log, requestID
}

// Batch is the database's one group-committing batcher (see Batcher),
// shared by every app that writes through it, created on first use and
// closed by CloseBatch or Close.
func (db *DB) Batch() *Batcher {
	db.batchOnce.Do(func() { db.batch = db.NewBatcher(256) })
	return db.batch
}

// CloseBatch commits the writes queued in Batch and refuses new ones (on
// graceful shutdown, after the HTTP server stopped). A no-op without one.
func (db *DB) CloseBatch() {
	db.batchOnce.Do(func() {}) // none was made: make none now
	if db.batch != nil {
		db.batch.Close()
	}
}

// IsPostgres reports whether url names a PostgreSQL database (Open's
// choice of driver).
func IsPostgres(url string) bool {
	return strings.HasPrefix(url, "postgres://") || strings.HasPrefix(url, "postgresql://")
}

// Open opens url: "postgres://..." for PostgreSQL, "sqlite:PATH" or "" for the
// SQLite file tutti.db in dataDir.
func Open(ctx context.Context, url, dataDir string) (*DB, error) {
	if IsPostgres(url) {
		return openPostgres(ctx, url)
	}
	path := strings.TrimPrefix(url, "sqlite:")
	if path == "" {
		if err := os.MkdirAll(dataDir, 0o750); err != nil {
			return nil, fmt.Errorf("db: data dir: %w", err)
		}
		path = filepath.Join(dataDir, "tutti.db")
	}
	return openSQLite(ctx, path)
}

// sqliteURI is path as an SQLite URI filename: a '?' or '#' in it (a data
// directory named so) would otherwise end the path and cut off the
// connection's settings (WAL, busy timeout, foreign keys) with it.
func sqliteURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

func openSQLite(ctx context.Context, path string) (*DB, error) {
	// busy_timeout first, so that the journal_mode change itself waits for locks.
	pragmas := "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
		"&_pragma=foreign_keys(ON)&_pragma=temp_store(MEMORY)&_pragma=cache_size(-32000)&_time_format=sqlite"
	uri := sqliteURI(path)
	w, err := sql.Open("sqlite", uri+"?"+pragmas+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("db: open sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	if err := w.PingContext(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("db: open sqlite %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", uri+"?"+pragmas+"&_pragma=query_only(ON)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("db: open sqlite: %w", err)
	}
	n := max(4, 2*runtime.GOMAXPROCS(0))
	r.SetMaxOpenConns(n)
	r.SetMaxIdleConns(n)
	r.SetConnMaxIdleTime(5 * time.Minute)
	ck, err := sql.Open("sqlite", uri+"?"+pragmas)
	if err != nil {
		w.Close()
		r.Close()
		return nil, fmt.Errorf("db: open sqlite: %w", err)
	}
	ck.SetMaxOpenConns(1)
	ck.SetMaxIdleConns(1)
	return &DB{Dialect: SQLite, read: r, write: w, prepared: &stmts{pool: r}, txPrep: &txStmts{stmts: stmts{pool: w}},
		checkpoints: startCheckpoints(ck, CheckpointEvery), others: others{every: othersEvery}}, nil
}

func openPostgres(ctx context.Context, url string) (*DB, error) {
	p, err := sql.Open("pgx", url)
	if err != nil {
		return nil, fmt.Errorf("db: open postgres: %w", err)
	}
	n := max(8, 4*runtime.GOMAXPROCS(0))
	p.SetMaxOpenConns(n)
	p.SetMaxIdleConns(n)
	p.SetConnMaxIdleTime(5 * time.Minute)
	if err := p.PingContext(ctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("db: open postgres: %w", err)
	}
	return &DB{Dialect: Postgres, read: p, write: p}, nil
}

// Close commits the batcher's queued writes, then closes both pools.
func (db *DB) Close() error {
	db.stopOthers()
	db.CloseBatch()
	db.prepared.close()
	if db.txPrep != nil {
		db.txPrep.close()
	}
	err := db.checkpoints.close()
	err = errors.Join(err, db.read.Close())
	if db.write != db.read {
		err = errors.Join(err, db.write.Close())
	}
	if db.replica != nil {
		err = errors.Join(err, db.replica.pool.Close())
	}
	return err
}

// Ping checks that the database answers (for /readyz).
func (db *DB) Ping(ctx context.Context) error { return db.read.PingContext(ctx) }

// Queries is the number of statements run so far (reads, writes, transactions).
func (db *DB) Queries() int64 { return db.queries.Load() }

// Transactions is the number of write transactions begun so far (WithTx,
// Exec, each batch of Batch, each attempt of a retried one), counted as
// Queries is: a BEGIN ... COMMIT, the round trips and the commit's flush
// that a request's writes cost. On PostgreSQL each read outside them is
// a transaction of its own too, as pg_stat_database counts them, but not
// one that waits for a flush.
func (db *DB) Transactions() int64 { return db.txs.Load() }

// Stats reports the read and write pools.
// On PostgreSQL both are one pool, reported as read.
func (db *DB) Stats() (read, write sql.DBStats) {
	if db.write == db.read {
		return db.read.Stats(), sql.DBStats{}
	}
	return db.read.Stats(), db.write.Stats()
}

// SQL returns the pool for writes, for tools (migrations, bulk loads).
func (db *DB) SQL() *sql.DB { return db.write }

// Rebind turns ? placeholders into $1, $2, ... for PostgreSQL. Queries must not
// contain a literal '?'.
func (db *DB) Rebind(q string) string {
	if db.Dialect != Postgres {
		return q
	}
	if v, ok := db.rebinds.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	db.rebinds.Store(q, b.String())
	return b.String()
}

// Query runs a read on the read pool.
func (db *DB) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	db.count(ctx)
	if st := db.prepared.get(ctx, q); st != nil {
		rows, err := st.QueryContext(ctx, args...)
		return rows, translate(err)
	}
	rows, err := db.read.QueryContext(ctx, db.Rebind(q), args...)
	return rows, translate(err)
}

// QueryRow runs a single-row read on the read pool; Scan returns errs.ErrNotFound
// through Scan(row, ...) in this package.
func (db *DB) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	db.count(ctx)
	if st := db.prepared.get(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return db.read.QueryRowContext(ctx, db.Rebind(q), args...)
}

// Exec runs one write statement in its own transaction.
func (db *DB) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := db.WithTx(ctx, func(tx *Tx) error {
		var err error
		res, err = tx.Exec(ctx, q, args...)
		return err
	})
	return res, err
}

type uncountedKey struct{}

// Uncounted marks ctx so that the statements run with it are left out of
// Queries: a background worker's polling is not what a request costs.
func Uncounted(ctx context.Context) context.Context {
	return context.WithValue(ctx, uncountedKey{}, true)
}

func (db *DB) count(ctx context.Context) {
	if ctx.Value(uncountedKey{}) == nil {
		db.queries.Add(1)
	}
}

// countTx counts a transaction's begin: a statement and a transaction.
func (db *DB) countTx(ctx context.Context) {
	if ctx.Value(uncountedKey{}) == nil {
		db.queries.Add(1)
		db.txs.Add(1)
	}
}
