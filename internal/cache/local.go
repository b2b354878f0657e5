package cache

import (
	"bytes"
	"context"
	"time"

	"github.com/maypok86/otter/v2"
)

// Local is the in-process backend: otter, bounded by bytes, each entry with
// its own time to live.
type Local struct {
	c *otter.Cache[string, entry]
}

type entry struct {
	val []byte
	ttl time.Duration
}

// entryOverhead is what an entry costs beyond its key's and its value's
// bytes: otter's node, the entry, the hash table's share (measured by
// TestLocalCountsRealBytes: about 150 bytes on amd64).
const entryOverhead = 160

// weight is an entry's real size in bytes: its key, its value's whole
// backing array (not only its length) and the overhead.
func weight(k string, e entry) uint32 {
	return uint32(min(len(k)+cap(e.val)+entryOverhead, 1<<31))
}

// NewLocal makes an in-process backend whose entries take about maxBytes of
// memory in all, counted by their real bytes (see weight).
func NewLocal(maxBytes int) *Local {
	c := otter.Must(&otter.Options[string, entry]{
		MaximumWeight: uint64(maxBytes),
		Weigher:       weight,
		ExpiryCalculator: otter.ExpiryWritingFunc(func(e otter.Entry[string, entry]) time.Duration {
			return e.Value.ttl
		}),
	})
	return &Local{c: c}
}

// Get implements Backend.
func (l *Local) Get(_ context.Context, key string) ([]byte, bool) {
	e, ok := l.c.GetIfPresent(key)
	return e.val, ok
}

// Set implements Backend. A value with much spare capacity (a buffer's
// bytes) is copied to its size first, so the cache holds what it counts.
func (l *Local) Set(_ context.Context, key string, val []byte, ttl time.Duration) {
	if ttl <= 0 {
		ttl = time.Hour
	}
	if cap(val)-len(val) > 64+len(val)/8 {
		val = bytes.Clone(val)
	}
	l.c.Set(key, entry{val: val, ttl: ttl})
}

// Delete implements Backend.
func (l *Local) Delete(_ context.Context, keys ...string) {
	for _, k := range keys {
		l.c.Invalidate(k)
	}
}

// Close stops the backend's periodic clean-up goroutine (otter runs one for
// expiring entries); the cache must not be used after.
func (l *Local) Close() { l.c.StopAllGoroutines() }
