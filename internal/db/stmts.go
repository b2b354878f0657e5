package db

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// maxStmts bounds the statements a pool keeps prepared: queries past it
// (a program that builds many query texts) run unprepared, as before.
const maxStmts = 512

// stmts keeps the read pool's statements prepared on SQLite, where the
// driver otherwise parses and plans every query again: under a rush of
// cached-page misses and wizard pages the parser was a fifth of the CPU.
// A statement is prepared once a connection, on first use (database/sql's
// Stmt), and reused while that connection lives. PostgreSQL's driver
// (pgx) keeps its own statement cache per connection.
//
// Only reads on the pool use it: each call holds its connection until
// its rows are closed, so no statement runs twice at once. Transactions
// do not (a statement run again while its rows are open in the same
// transaction would reset them).
type stmts struct {
	pool *sql.DB
	m    sync.Map // query -> *sql.Stmt
	n    atomic.Int32
}

// get is q prepared, or nil when it cannot be (the bound reached, or the
// prepare failed: the query then runs unprepared and reports its error).
func (s *stmts) get(ctx context.Context, q string) *sql.Stmt {
	if s == nil {
		return nil
	}
	if v, ok := s.m.Load(q); ok {
		return v.(*sql.Stmt)
	}
	if s.n.Load() >= maxStmts {
		return nil
	}
	st, err := s.pool.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	if v, loaded := s.m.LoadOrStore(q, st); loaded { // another caller won
		st.Close()
		return v.(*sql.Stmt)
	}
	s.n.Add(1)
	return st
}

// close closes every kept statement.
func (s *stmts) close() {
	if s == nil {
		return
	}
	s.m.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
}
