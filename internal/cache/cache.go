// Package cache is tutti's cache: a Backend (in-process otter, Local; in
// cluster mode Tiered: Local in front of the shared Redis) behind Cache, which
// adds stampede protection (singleflight in the process and, with a Backend
// that can lock, a short Redis lock across instances) and hit/miss counts.
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
	"errors"
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

// Locker is a Backend that can lock a key across instances (Redis).
// LockOrGet asks, in one round trip, for key's value and, when it is not
// there, for key's lock: found with the value; or held or not (another
// holds it). The holder calls release once, with the value it computed
// (set under key for ttl, both tiers, in the lock's round trip) or nil (no
// value: the lock is only freed). An error means the lock cannot be asked
// for.
type Locker interface {
	LockOrGet(ctx context.Context, key string, ttl time.Duration) (val []byte, found bool, release Release, err error)
}

// Release sets val under the locked key for ttl (nil: nothing) and frees
// the lock.
type Release func(val []byte, ttl time.Duration)

// errDown is a Locker's error while its Redis is skipped after a failure.
var errDown = errors.New("cache: redis paused after a failure")

// Cache is the cache the apps use.
type Cache struct {
	b      Backend
	sf     singleflight.Group
	hits   atomic.Int64
	misses atomic.Int64

	// LockTTL is how long a miss's lock is held at most (a holder that dies
	// blocks the others this long); the others poll for the value meanwhile.
	LockTTL time.Duration
}

// DefaultLockTTL is a Cache's LockTTL.
const DefaultLockTTL = 3 * time.Second

// New wraps a backend.
func New(b Backend) *Cache { return &Cache{b: b, LockTTL: DefaultLockTTL} }

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

// Drop removes keys nobody will ask for again (a superseded version's): a
// backend with tiers drops them here and in the shared tier without telling
// the other instances, whose copies are unreachable too and age out.
func (c *Cache) Drop(ctx context.Context, keys ...string) {
	if d, ok := c.b.(interface {
		Drop(ctx context.Context, keys ...string)
	}); ok {
		d.Drop(ctx, keys...)
		return
	}
	c.b.Delete(ctx, keys...)
}

// Fetch returns the value under key, computing it with fn on a miss; fn also
// says how long its value may be kept. Concurrent misses of one key in this
// process share one call of fn; with a Locker backend, concurrent misses on
// several instances too: one takes the lock and computes, the others wait
// for its value (and compute if the lock expires first). Errors are not
// cached.
func (c *Cache) Fetch(ctx context.Context, key string, fn func(ctx context.Context) ([]byte, time.Duration, error)) ([]byte, error) {
	l, locks := c.b.(Locker)
	if locks {
		// This process's tier only: on a miss, the lock's one round trip
		// reads the shared tier too (fetchLocked), rather than a GET first.
		if v, ok := c.peek(ctx, key); ok {
			c.hits.Add(1)
			return v, nil
		}
	} else if v, ok := c.Get(ctx, key); ok {
		return v, nil
	}
	v, err, _ := c.sf.Do(key, func() (any, error) {
		if v, ok := c.peek(ctx, key); ok { // filled here while we waited
			return v, nil
		}
		ctx := context.WithoutCancel(ctx)
		if locks {
			return c.fetchLocked(ctx, l, key, fn)
		}
		return c.compute(ctx, key, fn)
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

func (c *Cache) compute(ctx context.Context, key string, fn func(ctx context.Context) ([]byte, time.Duration, error)) ([]byte, error) {
	v, ttl, err := fn(ctx)
	if err != nil {
		return nil, err
	}
	c.b.Set(ctx, key, v, ttl)
	return v, nil
}

// peek is key's value if this process holds it: the backend's own tier
// when it has tiers (a value another call in this process just set is
// there; asking Redis again would cost a round trip).
func (c *Cache) peek(ctx context.Context, key string) ([]byte, bool) {
	if p, ok := c.b.(interface {
		Peek(ctx context.Context, key string) ([]byte, bool)
	}); ok {
		return p.Peek(ctx, key)
	}
	return c.b.Get(ctx, key)
}

// fetchLocked reads key's value from the shared tier, or computes it
// under the backend's lock, or waits for the holder's value, polling with
// a growing interval; each poll asks for the value and the lock at once, so
// a dead holder's expiry lets this one compute. Without the lock (Redis
// down) it computes. A value found counts as a hit, a computed one as a
// miss.
func (c *Cache) fetchLocked(ctx context.Context, l Locker, key string, fn func(ctx context.Context) ([]byte, time.Duration, error)) ([]byte, error) {
	ttl := c.LockTTL
	deadline := time.Now().Add(2 * ttl)
	wait := 2 * time.Millisecond
	for {
		v, found, release, err := l.LockOrGet(ctx, key, ttl)
		switch {
		case err == nil && found: // in the shared tier, or set by another instance meanwhile
			c.hits.Add(1)
			return v, nil
		case err == nil && release != nil:
			c.misses.Add(1)
			return computeHeld(ctx, release, fn)
		case err != nil || time.Now().After(deadline):
			c.misses.Add(1)
			return c.compute(ctx, key, fn)
		}
		time.Sleep(wait)
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// computeHeld computes a value under its lock and hands it to release,
// which sets it and frees the lock in one round trip; an error of fn, or
// its panic (which goes on up), frees the lock with no value.
func computeHeld(ctx context.Context, release Release, fn func(ctx context.Context) ([]byte, time.Duration, error)) ([]byte, error) {
	returned := false
	defer func() {
		if !returned {
			release(nil, 0)
		}
	}()
	v, ttl, err := fn(ctx)
	returned = true
	if err != nil {
		release(nil, 0)
		return nil, err
	}
	release(v, ttl)
	return v, nil
}

// Stats returns the hit and miss counts since start.
func (c *Cache) Stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }
