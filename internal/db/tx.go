package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Tx is a write transaction.
type Tx struct {
	tx     txConn
	db     *DB
	once   map[string]int64
	claims []*requestKey   // the request keys inserted (begin)
	missed map[string]bool // texts run unprepared (txStmts)
	after  []func()        // AfterCommit's
}

// AfterCommit runs fn once the transaction has committed, before the
// writer returns (before Batcher.Do does, for a batched write); never if
// it rolls back. It is for what must follow the commit in this process,
// such as dropping a row kept in memory (cache.Memo): done inside the
// transaction, a read between that and the commit would keep the old row
// again. A retry, or a batch run again write by write, is a new
// transaction, where the writes register theirs again.
func (tx *Tx) AfterCommit(fn func()) { tx.after = append(tx.after, fn) }

// Once runs fn the first time key is asked for in this transaction and
// keeps its result; later calls return it without running fn. It is for a
// statement that the writes of a batch (Batcher) need once per transaction
// rather than once each, such as raising a version: a batch is one change.
// A retry, or a batch run again write by write, is a new transaction, where
// fn runs again.
func (tx *Tx) Once(key string, fn func() (int64, error)) (int64, error) {
	if v, ok := tx.once[key]; ok {
		return v, nil
	}
	v, err := fn()
	if err != nil {
		return 0, err
	}
	if tx.once == nil {
		tx.once = map[string]int64{}
	}
	tx.once[key] = v
	return v, nil
}

// WithTx runs fn in a write transaction (BEGIN IMMEDIATE on SQLite), committing
// if fn returns nil and rolling back otherwise. A transaction that fails because
// the database was busy or could not serialize is retried a few times, so fn
// must have no effects outside the transaction.
func (db *DB) WithTx(ctx context.Context, fn func(tx *Tx) error) error {
	return db.withTx(ctx, []context.Context{ctx}, fn)
}

// withTx is WithTx claiming the request keys of the contexts of (see
// Tx.begin) as the transaction's first statement.
func (db *DB) withTx(ctx context.Context, of []context.Context, fn func(tx *Tx) error) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 10 * time.Millisecond):
			}
		}
		err = db.tx(ctx, of, fn)
		if !retryable(err) {
			return err
		}
	}
	return err
}

func (db *DB) tx(ctx context.Context, of []context.Context, fn func(tx *Tx) error) (err error) {
	db.countTx(ctx)
	tx := &Tx{db: db}
	if err = tx.begin(ctx, of); err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			tx.tx.Rollback()
			panic(p)
		}
		if err != nil {
			tx.tx.Rollback()
		}
	}()
	defer func() { db.txPrep.missed(tx.missed) }()
	if err = fn(tx); err != nil {
		return err
	}
	if err = tx.tx.Commit(); err != nil {
		return fmt.Errorf("db: commit: %w", translate(err))
	}
	tx.committed()
	for _, fn := range tx.after {
		fn()
	}
	return nil
}

// Dialect is the transaction's database dialect.
func (tx *Tx) Dialect() Dialect { return tx.db.Dialect }

// Exec runs a statement in the transaction.
func (tx *Tx) Exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	tx.db.count(ctx)
	if st := tx.prepared(ctx, q); st != nil {
		res, err := st.ExecContext(ctx, args...)
		return res, translate(err)
	}
	res, err := tx.tx.ExecContext(ctx, tx.db.Rebind(q), args...)
	return res, translate(err)
}

// prepared is q kept prepared, as the transaction's statement, or nil
// (recorded as missed: see txStmts).
func (tx *Tx) prepared(ctx context.Context, q string) *sql.Stmt {
	if tx.db.txPrep == nil {
		return nil
	}
	st := tx.db.txPrep.lookup(q)
	if st == nil {
		if keepable(q) {
			if tx.missed == nil {
				tx.missed = map[string]bool{}
			}
			tx.missed[q] = true
		}
		return nil
	}
	return tx.tx.(*sql.Tx).StmtContext(ctx, st) // txPrep is SQLite's: a *sql.Tx
}

// Query runs a read in the transaction.
func (tx *Tx) Query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	tx.db.count(ctx)
	rows, err := tx.tx.QueryContext(ctx, tx.db.Rebind(q), args...)
	return rows, translate(err)
}

// QueryRow runs a single-row read in the transaction.
func (tx *Tx) QueryRow(ctx context.Context, q string, args ...any) *sql.Row {
	tx.db.count(ctx)
	if st := tx.prepared(ctx, q); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return tx.tx.QueryRowContext(ctx, tx.db.Rebind(q), args...)
}

// Scan scans row into dest, turning sql.ErrNoRows into errs.ErrNotFound and
// driver errors into their kinds.
func Scan(row *sql.Row, dest ...any) error {
	return translate(row.Scan(dest...))
}

// Translate is what Scan does to an error, for a row scanned another way
// (a scan function over *sql.Row or *sql.Rows).
func Translate(err error) error { return translate(err) }

// translate maps driver errors to kinds: no rows -> not found, unique
// violation -> conflict. Other errors pass unchanged.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return errs.ErrNotFound
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() {
		case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
			return fmt.Errorf("%w: %v", errs.ErrConflict, err)
		}
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		return fmt.Errorf("%w: %v", errs.ErrConflict, err)
	}
	return err
}

// retryable reports whether a transaction failed only because of contention.
func retryable(err error) bool {
	if err == nil {
		return false
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code() & 0xff
		return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "40001" || pe.Code == "40P01"
	}
	return strings.Contains(err.Error(), "database is locked")
}
