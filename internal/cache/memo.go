package cache

import (
	"hash/maphash"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
)

// memoStripes is how many generations guard a memo's keys.
const memoStripes = 64

// Memo is a small write-guarded cache of K to V, each entry kept at most
// the expiry given to NewMemo. It is for embedded mode (SQLite: this
// process owns the database and makes every write of the rows it keeps):
// rows read on every request, such as a signed-in user's session and
// account or a runner's hold, come from memory. Writes go to the database
// first, then drop the entry (Forget, after the commit). A read that raced
// a write of its key does not keep what it read: each write bumps a
// generation of the key's stripe, and a read keeps its row only if none
// happened meanwhile (one generation for all keys voided most reads of a
// rush, where some session is written every millisecond and a read waits
// for the core for longer). A change made by another process is the
// owner's to watch for (db.OnOthers, then ForgetAll). Cluster mode keeps
// no Memo: a nil one holds nothing.
type Memo[K comparable, V any] struct {
	c    *otter.Cache[K, V]
	seed maphash.Seed
	gen  [memoStripes]atomic.Uint64
}

// NewMemo keeps up to size entries, each for expiry at most.
func NewMemo[K comparable, V any](size int, expiry time.Duration) *Memo[K, V] {
	return &Memo[K, V]{seed: maphash.MakeSeed(), c: otter.Must(&otter.Options[K, V]{
		MaximumSize:      size,
		ExpiryCalculator: otter.ExpiryWriting[K, V](expiry),
	})}
}

// stripe is k's generation.
func (m *Memo[K, V]) stripe(k K) *atomic.Uint64 {
	return &m.gen[maphash.Comparable(m.seed, k)%memoStripes]
}

// Get is k's entry; a nil memo has none.
func (m *Memo[K, V]) Get(k K) (V, bool) {
	if m == nil {
		var zero V
		return zero, false
	}
	return m.c.GetIfPresent(k)
}

// Reading returns the generation to give Keep after reading k from the
// database.
func (m *Memo[K, V]) Reading(k K) uint64 {
	if m == nil {
		return 0
	}
	return m.stripe(k).Load()
}

// Keep caches v as k's entry, read at generation g, unless a write of k's
// stripe came since.
func (m *Memo[K, V]) Keep(g uint64, k K, v V) {
	if m == nil {
		return
	}
	m.c.Set(k, v)
	if m.stripe(k).Load() != g { // a write raced the read: what was read may be old
		m.c.Invalidate(k)
	}
}

// Forget drops k after a write of it.
func (m *Memo[K, V]) Forget(k K) {
	if m == nil {
		return
	}
	m.stripe(k).Add(1)
	m.c.Invalidate(k)
}

// ForgetAll drops every entry after a write.
func (m *Memo[K, V]) ForgetAll() {
	if m == nil {
		return
	}
	for i := range m.gen {
		m.gen[i].Add(1)
	}
	m.c.InvalidateAll()
}
