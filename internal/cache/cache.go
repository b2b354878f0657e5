// Package cache is tutti's cache: a Backend (in-process otter now, Redis in
// cluster mode) behind Cache, which adds stampede protection (singleflight) and
// hit/miss counts.
//
// Keys are derived from what a fragment shows and its last change (key-based
// expiry): a write bumps a version, so stale entries become unreachable and
// simply age out. Nothing stale is served; nothing needs a delete fan-out.
//
// An app uses it for whatever costs queries or rendering to build and is
// read far more often than it changes: Fetch or Fragment with a Key made of
// the thing's id and its stamp from internal/version, so that concurrent
// misses build it once. Whole public pages go through Pages, which keeps
// them with their ETag and compressed bytes, so that a hit costs no
// rendering. Per-user data (my name, my likes) is not cached under a shared
// key: keep it in small fragments of its own or fill it in the browser.
package cache

import (
	"context"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"
)

// Backend stores byte values under string keys with a time to live.
type Backend interface {
	Get(ctx context.Context, key string) ([]byte, bool)
	Set(ctx context.Context, key string, val []byte, ttl time.Duration)
	Delete(ctx context.Context, keys ...string)
}

// Cache is the cache the apps use.
type Cache struct {
	b      Backend
	sf     singleflight.Group
	hits   atomic.Int64
	misses atomic.Int64
}

// New wraps a backend.
func New(b Backend) *Cache { return &Cache{b: b} }

// Get returns the value under key.
func (c *Cache) Get(ctx context.Context, key string) ([]byte, bool) {
	v, ok := c.b.Get(ctx, key)
	if ok {
		c.hits.Add(1)
	} else {
		c.misses.Add(1)
	}
	return v, ok
}

// Set stores val under key for ttl.
func (c *Cache) Set(ctx context.Context, key string, val []byte, ttl time.Duration) {
	c.b.Set(ctx, key, val, ttl)
}

// Delete removes keys.
func (c *Cache) Delete(ctx context.Context, keys ...string) { c.b.Delete(ctx, keys...) }

// Fetch returns the value under key, computing it with fn on a miss; fn also
// says how long its value may be kept. Concurrent misses of one key in this
// process share one call of fn. Errors are not cached.
func (c *Cache) Fetch(ctx context.Context, key string, fn func(ctx context.Context) ([]byte, time.Duration, error)) ([]byte, error) {
	if v, ok := c.Get(ctx, key); ok {
		return v, nil
	}
	v, err, _ := c.sf.Do(key, func() (any, error) {
		if v, ok := c.b.Get(ctx, key); ok { // filled while we waited
			return v, nil
		}
		v, ttl, err := fn(context.WithoutCancel(ctx))
		if err != nil {
			return nil, err
		}
		c.b.Set(ctx, key, v, ttl)
		return v, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// Stats returns the hit and miss counts since start.
func (c *Cache) Stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }
