// Package version is the core's "what changed last": a stamp per (scope, id)
// (a poll, roar's timeline) that every committed change raises, and that keys
// the caches of what the thing shows (key-based expiry: a change makes a new
// key, nothing stale is served).
//
// The apps keep the stamps in their own tables (meet a version column per
// poll, roar the roar_meta row) and tell the service after each commit; the
// service knows where the current stamp is:
//
//   - Memory (SQLite: one process owns the database): in memory, raised after
//     every commit here, never lowered; read from the database once per id.
//   - Database (PostgreSQL: several instances write): read from the database,
//     and for visitors trusted until a change is heard of (made here, or heard
//     on the bus from another instance) and MaxAge at most, in case a bus
//     message was lost. Fresh reads it every time (signed-in users see their
//     own writes made through another instance).
//
// Use it for anything cached whose content follows a thing's writes: key the
// cache entry with the thing's stamp (Get for visitors, Fresh for a user who
// has just written), and after each commit tell the service (Raise or Bump),
// so that the next read builds a new entry. For's choice of Memory or
// Database follows the database.
//
// In cluster mode (--redis-url) Redis keeps the current stamps (see Redis),
// so that every instance sees a change on its next request.
package version

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// Stamp is a thing's version, and the unix time (seconds) after which it
// changes without a write (a poll's deadline; 0: never).
type Stamp struct {
	V     int64
	Until int64
}

// Past reports whether the stamp's Until has passed at now.
func (s Stamp) Past(now time.Time) bool { return s.Until != 0 && now.Unix() >= s.Until }

// Loader reads id's stamp from the database (errs.ErrNotFound, wrapped or
// not, for an unknown id).
type Loader func(ctx context.Context, id string) (Stamp, error)

// Versions is the service; scopes are registered with their loader before
// use (at start-up).
type Versions interface {
	// Register names a scope and how its stamps are read.
	Register(scope string, load Loader)
	// Get is id's stamp for a visitor's cached page: it may lag another
	// instance's change by the bus delay (MaxAge at most), never this one's.
	Get(ctx context.Context, scope, id string) (Stamp, error)
	// Fresh is id's stamp as committed, for users who must see their writes.
	Fresh(ctx context.Context, scope, id string) (Stamp, error)
	// Raise records a change of id committed here at st.
	Raise(scope, id string, st Stamp)
	// Bump records a change of id committed here that added one to its
	// version.
	Bump(scope, id string)
	// Heard records a change of id made on another instance (the bus).
	Heard(scope, id string)
	// Forget drops what is known of id (deleted).
	Forget(scope, id string)
}

// MaxAge is how long Database trusts a stamp read for visitors when no
// change has been heard of.
const MaxAge = time.Second

// For returns the implementation for d's dialect.
func For(d *db.DB) Versions {
	if d.Dialect == db.SQLite {
		return NewMemory()
	}
	return NewDatabase()
}

// scopes maps a scope to its state; registered at start-up, read-only after
// (so a lookup takes no lock).
type scopes[E any] struct {
	mu sync.Mutex
	m  atomic.Pointer[map[string]*scope[E]]
}

type scope[E any] struct {
	load Loader
	ids  sync.Map // id -> *E
}

func (s *scopes[E]) register(name string, load Loader) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := map[string]*scope[E]{}
	if old := s.m.Load(); old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[name] = &scope[E]{load: load}
	s.m.Store(&m)
}

func (s *scopes[E]) get(name string) *scope[E] {
	if m := s.m.Load(); m != nil {
		if sc := (*m)[name]; sc != nil {
			return sc
		}
	}
	panic("version: scope " + name + " not registered")
}

func (sc *scope[E]) entry(id string) *E {
	if e, ok := sc.ids.Load(id); ok {
		return e.(*E)
	}
	e, _ := sc.ids.LoadOrStore(id, new(E))
	return e.(*E)
}

// Memory keeps the stamps in memory: right when this process is the only
// writer (SQLite).
type Memory struct{ s scopes[memEntry] }

type memEntry struct {
	known atomic.Bool
	v     atomic.Int64
	until atomic.Int64
}

// NewMemory makes an in-memory service.
func NewMemory() *Memory { return &Memory{} }

// Register implements Versions.
func (m *Memory) Register(scope string, load Loader) { m.s.register(scope, load) }

// Get implements Versions: a map load once id is known.
func (m *Memory) Get(ctx context.Context, scope, id string) (Stamp, error) {
	sc := m.s.get(scope)
	if e, ok := sc.ids.Load(id); ok && e.(*memEntry).known.Load() {
		e := e.(*memEntry)
		return Stamp{V: e.v.Load(), Until: e.until.Load()}, nil
	}
	st, err := sc.load(ctx, id)
	if err != nil {
		return Stamp{}, err
	}
	m.raise(sc, id, st)
	return st, nil
}

// Fresh implements Versions: in memory is as fresh as the database.
func (m *Memory) Fresh(ctx context.Context, scope, id string) (Stamp, error) {
	return m.Get(ctx, scope, id)
}

// Raise implements Versions: the version is raised to st.V, never lowered
// (a reader that loaded an older stamp cannot undo a writer's raise).
func (m *Memory) Raise(scope, id string, st Stamp) { m.raise(m.s.get(scope), id, st) }

func (m *Memory) raise(sc *scope[memEntry], id string, st Stamp) {
	e := sc.entry(id)
	for {
		cur := e.v.Load()
		if e.known.Load() && cur > st.V {
			return
		}
		if e.v.CompareAndSwap(cur, st.V) {
			break
		}
	}
	e.until.Store(st.Until)
	e.known.Store(true)
}

// Bump implements Versions. An id not read yet stays unknown (it is read
// from the database on its next Get).
func (m *Memory) Bump(scope, id string) {
	if e, ok := m.s.get(scope).ids.Load(id); ok {
		e.(*memEntry).v.Add(1)
	}
}

// Heard implements Versions: with one process there is nobody else.
func (m *Memory) Heard(string, string) {}

// Forget implements Versions.
func (m *Memory) Forget(scope, id string) { m.s.get(scope).ids.Delete(id) }

// Database reads the stamps from the database, trusting one read for
// visitors until a change is heard of, MaxAge at most.
type Database struct {
	s      scopes[dbEntry]
	maxAge time.Duration
}

type dbEntry struct {
	changes atomic.Uint64 // changes heard of (here or on the bus)
	seen    atomic.Pointer[seen]
}

type seen struct {
	st      Stamp
	at      time.Time
	changes uint64
}

// NewDatabase makes the service of a shared database.
func NewDatabase() *Database { return &Database{maxAge: MaxAge} }

// Register implements Versions.
func (d *Database) Register(scope string, load Loader) { d.s.register(scope, load) }

// Get implements Versions.
func (d *Database) Get(ctx context.Context, scope, id string) (Stamp, error) {
	sc := d.s.get(scope)
	e := sc.entry(id)
	changes := e.changes.Load()
	if s := e.seen.Load(); s != nil && s.changes == changes && time.Since(s.at) < d.maxAge {
		return s.st, nil
	}
	return d.read(ctx, sc, e, id, changes)
}

// read loads id's stamp, stamped with the time and the changes counted
// before the read: a change that commits meanwhile makes it stale at once,
// and it is never trusted for more than maxAge after the read began.
func (d *Database) read(ctx context.Context, sc *scope[dbEntry], e *dbEntry, id string, changes uint64) (Stamp, error) {
	at := time.Now()
	st, err := sc.load(ctx, id)
	if err != nil {
		if e.seen.Load() == nil && e.changes.Load() == 0 {
			sc.ids.CompareAndDelete(id, e) // unknown ids leave nothing behind
		}
		return Stamp{}, err
	}
	e.seen.Store(&seen{st: st, at: at, changes: changes})
	return st, nil
}

// Fresh implements Versions: one read of the database.
func (d *Database) Fresh(ctx context.Context, scope, id string) (Stamp, error) {
	sc := d.s.get(scope)
	e := sc.entry(id)
	return d.read(ctx, sc, e, id, e.changes.Load())
}

// Raise implements Versions.
func (d *Database) Raise(scope, id string, _ Stamp) { d.changedHere(scope, id) }

// Bump implements Versions.
func (d *Database) Bump(scope, id string) { d.changedHere(scope, id) }

// Heard implements Versions.
func (d *Database) Heard(scope, id string) {
	if e, ok := d.s.get(scope).ids.Load(id); ok {
		e.(*dbEntry).changes.Add(1)
	}
}

// changedHere is Heard for a change committed here: the entry is made if
// need be, so that a read under way, which began before the commit, is not
// trusted after it.
func (d *Database) changedHere(scope, id string) { d.s.get(scope).entry(id).changes.Add(1) }

// Forget implements Versions.
func (d *Database) Forget(scope, id string) { d.s.get(scope).ids.Delete(id) }
