package cache

import (
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

// NewLocal makes an in-process backend holding about maxBytes of values.
func NewLocal(maxBytes int) *Local {
	c := otter.Must(&otter.Options[string, entry]{
		MaximumWeight: uint64(maxBytes),
		Weigher: func(k string, e entry) uint32 {
			return uint32(min(len(k)+len(e.val)+64, 1<<31))
		},
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

// Set implements Backend.
func (l *Local) Set(_ context.Context, key string, val []byte, ttl time.Duration) {
	if ttl <= 0 {
		ttl = time.Hour
	}
	l.c.Set(key, entry{val: val, ttl: ttl})
}

// Delete implements Backend.
func (l *Local) Delete(_ context.Context, keys ...string) {
	for _, k := range keys {
		l.c.Invalidate(k)
	}
}
