package auth

import (
	"hash/maphash"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
)

// In embedded mode (SQLite: this process owns the database and writes
// every session and user row) a signed-in request's two reads, its
// session and its user, come from memory: they were a fifth of the
// server's core in a profile of race registrations. Writes go to the
// database first, then drop the entry. A read that raced a write of its
// key does not keep what it read: each write bumps a generation of the
// key's stripe, and a read caches its row only if none happened meanwhile
// (one generation for all keys voided most reads of a rush, where a
// session is written somewhere every millisecond and a read waits for the
// core for longer). A change made by another process (the `tutti
// moderator` command) shows within a second: the server looks whether
// anyone else wrote the database every second (WatchOthers) and then
// forgets everything. Entries expire after memoFor, longer than a
// runner's think between two pages (the seed's 15-60 s), so that a
// rush's wizard reads each user and session from the database once (with
// users kept 30 s, their reads were 8 % of the server's core in the
// burst's steady part).
// Cluster mode and PostgreSQL keep reading the database (or Redis);
// auth.New decides.

// memoFor is how long a user or a session is kept at most.
const memoFor = 5 * time.Minute

// memoStripes is how many generations guard a memo's keys.
const memoStripes = 64

// memo is a small write-guarded cache of K to V.
type memo[K comparable, V any] struct {
	c    *otter.Cache[K, V]
	seed maphash.Seed
	gen  [memoStripes]atomic.Uint64
}

func newMemo[K comparable, V any](size int, expiry time.Duration) *memo[K, V] {
	return &memo[K, V]{seed: maphash.MakeSeed(), c: otter.Must(&otter.Options[K, V]{
		MaximumSize:      size,
		ExpiryCalculator: otter.ExpiryWriting[K, V](expiry),
	})}
}

// stripe is k's generation.
func (m *memo[K, V]) stripe(k K) *atomic.Uint64 {
	return &m.gen[maphash.Comparable(m.seed, k)%memoStripes]
}

// get is k's entry; a nil memo has none.
func (m *memo[K, V]) get(k K) (V, bool) {
	if m == nil {
		var zero V
		return zero, false
	}
	return m.c.GetIfPresent(k)
}

// reading returns the generation to give keep after reading k from the
// database.
func (m *memo[K, V]) reading(k K) uint64 {
	if m == nil {
		return 0
	}
	return m.stripe(k).Load()
}

// keep caches v as k's entry, read at generation g, unless a write of k's
// stripe came since.
func (m *memo[K, V]) keep(g uint64, k K, v V) {
	if m == nil {
		return
	}
	m.c.Set(k, v)
	if m.stripe(k).Load() != g { // a write raced the read: what was read may be old
		m.c.Invalidate(k)
	}
}

// forget drops k after a write of it.
func (m *memo[K, V]) forget(k K) {
	if m == nil {
		return
	}
	m.stripe(k).Add(1)
	m.c.Invalidate(k)
}

// forgetAll drops every entry after a write.
func (m *memo[K, V]) forgetAll() {
	if m == nil {
		return
	}
	for i := range m.gen {
		m.gen[i].Add(1)
	}
	m.c.InvalidateAll()
}
