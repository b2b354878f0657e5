package db

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// txConn is what a transaction's statements run on: database/sql's *sql.Tx
// (SQLite), or a connection held from the pool with a transaction open on
// it (pgTx, PostgreSQL).
type txConn interface {
	ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row
	Commit() error
	Rollback() error
}

// pgTx is a PostgreSQL transaction on a connection held from the pool. Its
// BEGIN is sent together with its first statement, the claim of its
// request keys, in one round trip (a pipeline of the two), where
// database/sql's BeginTx waits for BEGIN's answer before the claim can be
// sent: a round trip less for each write transaction, the commonest
// statement pair of every write.
type pgTx struct {
	*sql.Conn
	ctx context.Context
}

// endTimeout bounds a COMMIT or ROLLBACK whose request's context is gone.
const endTimeout = 5 * time.Second

// beginPG holds a connection and begins a transaction on it with first
// (with args; "" for none) in the same round trip. A first statement that
// fails is returned as is, its transaction rolled back and the connection
// given back.
func (db *DB) beginPG(ctx context.Context, first string, args ...any) (*pgTx, error) {
	c, err := db.write.Conn(ctx)
	if err != nil {
		return nil, err
	}
	t := &pgTx{Conn: c, ctx: ctx}
	var firstErr error
	err = c.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		b := &pgx.Batch{}
		b.Queue("begin")
		if first != "" {
			b.Queue(first, args...)
		}
		br := pc.SendBatch(ctx, b)
		_, err := br.Exec()
		if err == nil && first != "" {
			_, firstErr = br.Exec()
		}
		if cerr := br.Close(); err == nil && firstErr == nil {
			err = cerr
		}
		if err == nil && pc.PgConn().TxStatus() == 'I' {
			err = errors.New("no transaction open after BEGIN")
		}
		if err != nil {
			return fmt.Errorf("%w (%w)", err, driver.ErrBadConn) // the connection's state is unknown: not reused
		}
		return nil
	})
	if err != nil {
		c.Close()
		return nil, err
	}
	if firstErr != nil {
		t.Rollback()
		return nil, firstErr
	}
	return t, nil
}

// Commit commits, and tells a COMMIT that PostgreSQL answered with
// ROLLBACK (a statement of the transaction failed) from a commit.
func (t *pgTx) Commit() error { return t.end("commit", "COMMIT") }

// Rollback rolls back.
func (t *pgTx) Rollback() error { return t.end("rollback", "ROLLBACK") }

func (t *pgTx) end(q, want string) error {
	if t.Conn == nil {
		return sql.ErrTxDone
	}
	c := t.Conn
	t.Conn = nil
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), endTimeout)
	defer cancel()
	var ended error
	err := c.Raw(func(dc any) error {
		pc := dc.(*stdlib.Conn).Conn()
		tag, err := pc.Exec(ctx, q)
		if err != nil {
			return fmt.Errorf("%w (%w)", err, driver.ErrBadConn)
		}
		if pc.PgConn().TxStatus() != 'I' {
			return fmt.Errorf("%s left a transaction open (%w)", q, driver.ErrBadConn)
		}
		if tag.String() != want {
			ended = fmt.Errorf("%s answered %s", q, tag)
		}
		return nil
	})
	return errors.Join(err, ended)
}
