package auth

import (
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
)

// In embedded mode (SQLite: this process owns the database and writes
// every session and user row) a signed-in request's two reads, its
// session and its user, come from memory: they were a fifth of the
// server's core in a profile of race registrations. Writes go to the
// database first, then drop the entry (write-through for sessions). A
// read that raced a write does not keep what it read: each write bumps a
// generation, and a read caches its row only if none happened meanwhile.
// Entries also expire after memoFor, which bounds how long a change made
// by another process (the `tutti moderator` command) takes to show.
// Cluster mode and PostgreSQL keep reading the database (or Redis);
// auth.New decides.

// memoFor is how long an entry is kept at most.
const memoFor = 30 * time.Second

// memo is a small write-guarded cache of K to V.
type memo[K comparable, V any] struct {
	c   *otter.Cache[K, V]
	gen atomic.Uint64
}

func newMemo[K comparable, V any](size int) *memo[K, V] {
	return &memo[K, V]{c: otter.Must(&otter.Options[K, V]{
		MaximumSize:      size,
		ExpiryCalculator: otter.ExpiryWriting[K, V](memoFor),
	})}
}

// get is k's entry; a nil memo has none.
func (m *memo[K, V]) get(k K) (V, bool) {
	if m == nil {
		var zero V
		return zero, false
	}
	return m.c.GetIfPresent(k)
}

// reading returns the generation to give keep after reading the database.
func (m *memo[K, V]) reading() uint64 {
	if m == nil {
		return 0
	}
	return m.gen.Load()
}

// keep caches v as k's entry, read at generation g, unless a write came since.
func (m *memo[K, V]) keep(g uint64, k K, v V) {
	if m == nil {
		return
	}
	m.c.Set(k, v)
	if m.gen.Load() != g { // a write raced the read: what was read may be old
		m.c.Invalidate(k)
	}
}

// forget drops k after a write of it.
func (m *memo[K, V]) forget(k K) {
	if m == nil {
		return
	}
	m.gen.Add(1)
	m.c.Invalidate(k)
}

// forgetAll drops every entry after a write.
func (m *memo[K, V]) forgetAll() {
	if m == nil {
		return
	}
	m.gen.Add(1)
	m.c.InvalidateAll()
}
