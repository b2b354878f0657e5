package cache

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
)

// Objects is the process's one cache of decoded values: what an app read
// from the database or the shared cache and decoded (a race, the newest
// roars), kept as Go values so that a hit costs one lookup, no decoding.
// It is bounded by bytes, with the in-process byte cache (Local), by
// --cache-bytes: SplitBudget gives it its share. Apps use it through a
// typed view, Decoded.
//
// Entries are version-keyed: Decoded.Get asks for a key at a version (the
// thing's stamp from internal/version, or one derived from it); the entry
// of a key at an older version is a miss, and the value loaded for the
// newer one replaces it at once, so an old version is unreachable and its
// memory freed by the write, not by aging out.
//
// The values are shared by every reader: read them, never change them.
type Objects struct {
	c      *otter.Cache[objKey, object]
	mu     sync.Mutex
	loads  map[loadKey]*load // the loads running, one per key at a version
	hits   atomic.Int64
	misses atomic.Int64
}

// objKey is a view's key: the view, and the key given to it, in s when it
// is a string (boxing a string in key would cost an allocation a lookup).
type objKey struct {
	view *view
	s    string
	key  any
}

// objKey is k's key in the Objects.
func (d *Decoded[K, V]) objKey(k K) objKey {
	if s, ok := any(k).(string); ok {
		return objKey{view: d.v, s: s}
	}
	return objKey{view: d.v, key: k}
}

// view tells one Decoded's entries apart from another's; its name is for
// errors.
type view struct{ name string }

// object is a kept value, at the version it was loaded for.
type object struct {
	version int64
	val     any
	weight  uint32
	ttl     time.Duration
}

// loadKey is a load: a key at a version.
type loadKey struct {
	objKey
	version int64
}

// load is a running load; done is closed when val and err are set.
type load struct {
	done chan struct{}
	val  any
	err  error
}

// ObjectOverhead is what an entry costs beyond its value's and its key's
// bytes: otter's node, the entry, the boxed key and value headers, the hash
// table's share (about the Local entry's; see entryOverhead).
const ObjectOverhead = 200

// DefaultObjectBytes bounds the Objects that a view made without one
// (tests, tools) keeps for itself.
const DefaultObjectBytes = 8 << 20

// DefaultObjectTTL is how long an entry is kept when its view says 0.
const DefaultObjectTTL = time.Hour

// ObjectShare is the part of --cache-bytes that Objects takes (see
// SplitBudget): a quarter.
const ObjectShare = 4

// SplitBudget splits the process's in-process cache budget (--cache-bytes)
// between the byte cache (Local: pages, fragments, encoded values) and the
// decoded values (Objects): a quarter to Objects, at least 1 MiB when the
// budget allows, the rest to Local. The two add up to total.
func SplitBudget(total int) (local, objects int) {
	objects = total / ObjectShare
	if objects < 1<<20 {
		objects = min(1<<20, total/2)
	}
	return total - objects, objects
}

// NewObjects makes a cache of decoded values that keeps about maxBytes, as
// its views weigh them.
func NewObjects(maxBytes int) *Objects {
	return &Objects{
		loads: map[loadKey]*load{},
		c: otter.Must(&otter.Options[objKey, object]{
			MaximumWeight: uint64(max(maxBytes, 1)),
			Weigher:       func(_ objKey, o object) uint32 { return o.weight },
			ExpiryCalculator: otter.ExpiryWritingFunc(func(e otter.Entry[objKey, object]) time.Duration {
				return e.Value.ttl
			}),
		}),
	}
}

// Bytes is the weight of the entries kept.
func (o *Objects) Bytes() uint64 { return o.c.WeightedSize() }

// MaxBytes is the budget the entries are kept within.
func (o *Objects) MaxBytes() uint64 { return o.c.GetMaximum() }

// Stats returns the hit and miss counts since start (a miss loads, or
// waits for another's load).
func (o *Objects) Stats() (hits, misses int64) { return o.hits.Load(), o.misses.Load() }

// Close stops the clean-up goroutine of expiring entries; the cache must
// not be used after.
func (o *Objects) Close() { o.c.StopAllGoroutines() }

// Decoded is a typed view of an Objects: the values of type V an app keeps
// by K at a version. Views of one Objects share its budget; their keys
// never collide.
type Decoded[K comparable, V any] struct {
	o    *Objects
	v    *view
	size func(V) int
	ttl  time.Duration
}

// NewDecoded makes a view of o named name (for errors). size weighs a
// value in bytes: what it holds beyond what is shared with others (the
// backing arrays of its slices, its strings, what its pointers reach); nil
// weighs it with Size, which walks the value. Give a cheaper estimate when
// the values are large and loaded often; an estimate too low lets the cache
// hold more than its budget. The key's bytes (a string's) and
// ObjectOverhead are added. An entry is kept ttl at most (0:
// DefaultObjectTTL) and dropped sooner when a newer version replaces it or
// the budget needs its room. A nil o makes the view an Objects of its own
// of DefaultObjectBytes (for tests and tools; the app's core passes the
// process's).
func NewDecoded[K comparable, V any](o *Objects, name string, ttl time.Duration, size func(V) int) *Decoded[K, V] {
	if o == nil {
		o = NewObjects(DefaultObjectBytes)
	}
	if ttl <= 0 {
		ttl = DefaultObjectTTL
	}
	if size == nil {
		size = func(v V) int { return Size(v) }
	}
	return &Decoded[K, V]{o: o, v: &view{name: name}, size: size, ttl: ttl}
}

// Hit returns k's value at version, if it is kept.
func (d *Decoded[K, V]) Hit(k K, version int64) (V, bool) {
	if e, ok := d.o.c.GetIfPresent(d.objKey(k)); ok && e.version == version {
		d.o.hits.Add(1)
		return e.val.(V), true
	}
	var zero V
	return zero, false
}

// Get returns k's value at version: the one kept, else the one load
// returns, which is kept unless it is an error (errors are not cached:
// the next Get loads again). Concurrent misses of k at one version share
// one call of load, which runs without ctx's cancellation (others may wait
// for it); a caller whose ctx ends stops waiting with ctx's error. A value
// loaded for a version older than the one kept is returned, not kept.
func (d *Decoded[K, V]) Get(ctx context.Context, k K, version int64, load func(ctx context.Context) (V, error)) (V, error) {
	if v, ok := d.Hit(k, version); ok {
		return v, nil
	}
	return d.load(ctx, k, version, load)
}

// Keep keeps v as k's value at version (unless a newer version is kept),
// for a caller that read it itself and decides whether it may be kept.
func (d *Decoded[K, V]) Keep(k K, version int64, v V) { d.keep(d.objKey(k), version, v) }

// Forget drops k's entry, whatever its version.
func (d *Decoded[K, V]) Forget(k K) { d.o.c.Invalidate(d.objKey(k)) }

// load runs fn as k's one load at version, or waits for the one running.
func (d *Decoded[K, V]) load(ctx context.Context, k K, version int64, fn func(ctx context.Context) (V, error)) (V, error) {
	var zero V
	o := d.o
	o.misses.Add(1)
	lk := loadKey{d.objKey(k), version}
	o.mu.Lock()
	if l, ok := o.loads[lk]; ok {
		o.mu.Unlock()
		select {
		case <-l.done:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
		if l.err != nil {
			return zero, l.err
		}
		return l.val.(V), nil
	}
	// A load that ended between the Hit and the lock has kept its value.
	if e, ok := o.c.GetIfPresent(lk.objKey); ok && e.version == version {
		o.mu.Unlock()
		return e.val.(V), nil
	}
	l := &load{done: make(chan struct{})}
	o.loads[lk] = l
	o.mu.Unlock()

	finished := false
	defer func() {
		if !finished { // fn panicked: the waiters get an error, the panic goes on up
			l.err = fmt.Errorf("cache: %s: the load of a value panicked", d.v.name)
		}
		o.mu.Lock()
		delete(o.loads, lk)
		o.mu.Unlock()
		close(l.done)
	}()
	v, err := fn(context.WithoutCancel(ctx))
	finished = true
	if err != nil {
		l.err = err
		return zero, err
	}
	l.val = v
	d.keep(lk.objKey, version, v)
	return v, nil
}

// keep sets k's entry to v at version, unless a newer version is kept.
func (d *Decoded[K, V]) keep(k objKey, version int64, v V) {
	w := d.size(v) + ObjectOverhead
	w += len(k.s)
	e := object{version: version, val: v, weight: uint32(min(max(w, 1), 1<<31)), ttl: d.ttl}
	d.o.c.Compute(k, func(old object, found bool) (object, otter.ComputeOp) {
		if found && old.version > version {
			return old, otter.CancelOp
		}
		return e, otter.WriteOp
	})
}
