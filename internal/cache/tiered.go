package cache

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"
)

// Bus carries the deleted keys between instances (internal/pubsub's Bus).
type Bus interface {
	Publish(subject string, data []byte) error
	Subscribe(subject string, fn func(subject string, data []byte)) (func(), error)
}

// Tiered is cluster mode's backend: this process's Local in front of the
// shared Redis. A hit in Local costs no network; a miss there reads Redis
// and keeps the value locally for the rest of its time to live.
//
// Keys are version-keyed, so a local entry never goes stale by a write
// elsewhere; only Delete must reach every instance's Local: it is published
// on the bus and dropped locally on receipt. A Redis read that a deletion
// overtook does not refill Local (see epoch).
type Tiered struct {
	local   *Local
	remote  *Redis
	bus     Bus
	subject string
	unsub   func()
	epoch   atomic.Uint64 // deletions seen; a read that straddles one is not kept locally

	dropMu sync.Mutex
	drops  []string // dropped keys waiting for their DEL in Redis (Drop)
	closed bool
	after  func(time.Duration, func()) // runs a DEL of drops later: time.AfterFunc (a test's clock in tests)
}

// DefaultLocalTTL is how long Local keeps a Redis value whose time to live
// Redis did not say.
const DefaultLocalTTL = time.Minute

// NewTiered puts local in front of remote; deletions go out on bus under
// subject (one per site sharing the bus) and come in from other instances.
func NewTiered(local *Local, remote *Redis, bus Bus, subject string) (*Tiered, error) {
	t := &Tiered{local: local, remote: remote, bus: bus, subject: subject,
		after: func(d time.Duration, f func()) { time.AfterFunc(d, f) }}
	unsub, err := bus.Subscribe(subject, func(_ string, data []byte) {
		var keys []string
		if json.Unmarshal(data, &keys) != nil {
			return
		}
		t.epoch.Add(1)
		t.local.Delete(context.Background(), keys...)
	})
	if err != nil {
		return nil, err
	}
	t.unsub = unsub
	return t, nil
}

// Get implements Backend.
func (t *Tiered) Get(ctx context.Context, key string) ([]byte, bool) {
	if v, ok := t.local.Get(ctx, key); ok {
		return v, true
	}
	e := t.epoch.Load()
	v, ttl, ok := t.remote.GetTTL(ctx, key)
	if !ok {
		return nil, false
	}
	t.keep(ctx, key, v, ttl, e)
	return v, true
}

// Set implements Backend: both tiers.
func (t *Tiered) Set(ctx context.Context, key string, val []byte, ttl time.Duration) {
	t.local.Set(ctx, key, val, ttl)
	t.remote.Set(ctx, key, val, ttl)
}

// Delete implements Backend: here, in Redis and, through the bus, in every
// other instance's Local.
func (t *Tiered) Delete(ctx context.Context, keys ...string) {
	if len(keys) == 0 {
		return
	}
	t.epoch.Add(1)
	t.local.Delete(ctx, keys...)
	t.remote.Delete(ctx, keys...)
	data, _ := json.Marshal(keys)
	t.bus.Publish(t.subject, data) // lost (bus down): other copies live out their ttl
}

// Drop removes keys that are unreachable (Cache.Drop) from both tiers here,
// without the bus: no other instance must forget them, and no read in
// flight is spoiled. The local tier forgets them at once; Redis within
// dropEvery, in one DEL for every key dropped meanwhile (a page superseded
// by each write would otherwise cost its writer a round trip).
func (t *Tiered) Drop(ctx context.Context, keys ...string) {
	t.local.Delete(ctx, keys...)
	t.dropMu.Lock()
	if t.closed {
		t.dropMu.Unlock()
		t.remote.Delete(ctx, keys...)
		return
	}
	if len(t.drops) == 0 {
		t.after(dropEvery, t.flushDrops)
	}
	t.drops = append(t.drops, keys...)
	full := len(t.drops) >= maxDrops
	t.dropMu.Unlock()
	if full {
		t.flushDrops()
	}
}

// dropEvery is how long a dropped key waits for others to share its DEL;
// maxDrops is how many may wait.
const (
	dropEvery = 250 * time.Millisecond
	maxDrops  = 512
)

// flushDrops deletes the dropped keys from Redis.
func (t *Tiered) flushDrops() {
	t.dropMu.Lock()
	keys := t.drops
	t.drops = nil
	t.dropMu.Unlock()
	t.remote.Delete(context.Background(), keys...)
}

// Peek is the local tier's value: what this process holds.
func (t *Tiered) Peek(ctx context.Context, key string) ([]byte, bool) { return t.local.Get(ctx, key) }

// LockOrGet implements Locker through Redis; a value found there is kept
// locally, as Get keeps it, and a value released is set in both tiers, as
// Set sets it.
func (t *Tiered) LockOrGet(ctx context.Context, key string, ttl time.Duration) ([]byte, bool, Release, error) {
	e := t.epoch.Load()
	v, vttl, found, release, err := t.remote.LockOrGet(ctx, key, ttl)
	if found {
		t.keep(ctx, key, v, vttl, e)
	}
	if release == nil {
		return v, found, nil, err
	}
	return v, found, func(val []byte, ttl time.Duration) {
		if val != nil {
			t.local.Set(ctx, key, val, ttl)
		}
		release(val, ttl)
	}, err
}

// keep sets a value read from Redis in the local tier for its remaining
// time to live, unless a deletion came in since the read began (epoch e).
func (t *Tiered) keep(ctx context.Context, key string, v []byte, ttl time.Duration, e uint64) {
	if ttl <= 0 {
		ttl = DefaultLocalTTL
	}
	if t.epoch.Load() == e {
		t.local.Set(ctx, key, v, ttl)
	}
}

// Close stops listening to the bus and the local tier's clean-up, and
// deletes the dropped keys still waiting.
func (t *Tiered) Close() {
	t.unsub()
	t.dropMu.Lock()
	t.closed = true
	t.dropMu.Unlock()
	t.flushDrops()
	t.local.Close()
}
