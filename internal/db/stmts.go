package db

import (
	"context"
	"database/sql"
	"strings"
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

// lookup is q if it is kept prepared, else nil; it prepares nothing.
func (s *stmts) lookup(q string) *sql.Stmt {
	if s == nil {
		return nil
	}
	if v, ok := s.m.Load(q); ok {
		return v.(*sql.Stmt)
	}
	return nil
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

// txStmts keeps the statements of SQLite's write transactions prepared.
// A transaction holds the write pool's one connection, so a statement
// cannot be prepared on the pool while one runs (database/sql would wait
// for that connection): a statement a transaction ran unprepared is
// prepared after the second transaction that runs it ends (a text one
// transaction runs, however often, is not kept; nor are long texts:
// keepable), and later transactions use it
// (sql.Tx.StmtContext finds it prepared on their connection). Under a
// rush of registrations the parsing of these statements was a tenth of the
// server's CPU.
//
// Exec and QueryRow use them, not Query: rows left open while the same
// text runs again in the transaction would be reset.
type txStmts struct {
	stmts
	mu     sync.Mutex
	seen   map[string]bool // texts run unprepared once
	queued map[string]bool // texts being prepared
}

// maxSeen bounds the texts remembered as seen once; past it they are
// forgotten and counted again.
const maxSeen = 4096

// keepable says whether q may be kept prepared: not a long text or one of
// many parameters, a multi-row insert's or a long IN list's, whose text
// changes with its row count (each kept would hold its own compiled
// program: 500 sizes of a 19-column insert took 230 MB).
func keepable(q string) bool {
	return len(q) <= 2048 && strings.Count(q, "?") <= 64
}

// missed records the texts a transaction ran unprepared, and prepares, on
// another goroutine, those an earlier transaction ran too.
func (s *txStmts) missed(qs map[string]bool) {
	if s == nil || len(qs) == 0 || s.n.Load() >= maxStmts {
		return
	}
	var ready []string
	s.mu.Lock()
	if s.seen == nil || len(s.seen) >= maxSeen {
		s.seen = map[string]bool{}
	}
	if s.queued == nil {
		s.queued = map[string]bool{}
	}
	for q := range qs {
		switch {
		case s.queued[q]:
		case s.seen[q]:
			delete(s.seen, q)
			s.queued[q] = true
			ready = append(ready, q)
		default:
			s.seen[q] = true
		}
	}
	s.mu.Unlock()
	if len(ready) > 0 {
		go s.prepare(ready)
	}
}

// prepare keeps qs prepared (a text that does not prepare is left to run
// unprepared: it stays queued, so it is not tried again).
func (s *txStmts) prepare(qs []string) {
	for _, q := range qs {
		s.get(context.Background(), q)
	}
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
