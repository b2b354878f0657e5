package cache

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/redisx"
	"github.com/tutti-dev/tutti/internal/redisx/redistest"
)

func TestRedisRoundTrip(t *testing.T) {
	r := NewRedis(redistest.Client(t))
	ctx := context.Background()
	if _, ok := r.Get(ctx, "a"); ok {
		t.Fatal("a found before any Set")
	}
	r.Set(ctx, "a", []byte("one"), time.Minute)
	r.Set(ctx, "b", []byte("two"), time.Minute)
	v, ttl, ok := r.GetTTL(ctx, "a")
	if !ok || string(v) != "one" || ttl <= 50*time.Second || ttl > time.Minute {
		t.Fatalf("GetTTL(a) = %q, %v, %v; want one, about a minute, true", v, ttl, ok)
	}
	r.Delete(ctx, "a", "b")
	if _, ok := r.Get(ctx, "b"); ok {
		t.Error("b found after Delete")
	}
	if f := r.c.Failures(); f != 0 {
		t.Errorf("%d failures; want 0", f)
	}
}

// instance is one tutti process's cache in cluster mode.
type instance struct {
	c     *Cache
	t     *Tiered
	local *Local
}

func newInstance(t *testing.T, rc *redisx.Client, bus Bus) *instance {
	t.Helper()
	l := NewLocal(1 << 20)
	tr, err := NewTiered(l, NewRedis(rc), bus, "test.cache.delete."+rc.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.Close)
	return &instance{c: New(tr), t: tr, local: l}
}

func testBus(t *testing.T) *pubsub.Bus {
	t.Helper()
	b, err := pubsub.Open("", t.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// Two instances share Redis and the bus: a value set through A is read by
// B (and kept in B's local tier); A's Delete drops B's local copy too.
func TestTieredDeleteReachesEveryInstance(t *testing.T) {
	rc := redistest.Client(t)
	bus := testBus(t)
	a, b := newInstance(t, rc, bus), newInstance(t, rc, bus)
	ctx := context.Background()
	a.c.Set(ctx, "k", []byte("v1"), time.Minute)
	if v, ok := b.c.Get(ctx, "k"); !ok || string(v) != "v1" {
		t.Fatalf("B Get = %q, %v; want v1 from Redis", v, ok)
	}
	if v, ok := b.local.Get(ctx, "k"); !ok || string(v) != "v1" {
		t.Fatalf("B's local tier has %q, %v; want v1 kept", v, ok)
	}
	a.c.Delete(ctx, "k")
	deadline := time.Now().Add(2 * time.Second)
	for {
		if _, ok := b.local.Get(ctx, "k"); !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("B's local tier still has k 2 s after A's Delete")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if v, ok := b.c.Get(ctx, "k"); ok {
		t.Errorf("B Get after Delete = %q; want a miss", v)
	}
}

// Concurrent misses of one key on two instances compute it once: one holds
// the Redis lock, the other waits for its value.
func TestFetchOnceAcrossInstances(t *testing.T) {
	rc := redistest.Client(t)
	bus := testBus(t)
	insts := []*instance{newInstance(t, rc, bus), newInstance(t, rc, bus)}
	var calls atomic.Int32
	fn := func(context.Context) ([]byte, time.Duration, error) {
		calls.Add(1)
		time.Sleep(150 * time.Millisecond) // long enough for the other to arrive
		return []byte("built"), time.Minute, nil
	}
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := insts[i%2].c.Fetch(context.Background(), "page", fn)
			if err != nil || string(v) != "built" {
				t.Errorf("Fetch = %q, %v; want built", v, err)
			}
		}()
	}
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("fn called %d times across two instances; want 1", n)
	}
}

// A lock holder that dies (never releases) holds the others up only until
// its lock expires; then one of them computes. The waiter's own LockTTL is
// an hour, so that its fallback (computing anyway after twice that) cannot
// be what ends the wait: no wall-clock budget is needed, only a hang guard.
func TestFetchAfterLockHolderDies(t *testing.T) {
	rc := redistest.Client(t)
	in := newInstance(t, rc, testBus(t))
	in.c.LockTTL = time.Hour
	ctx := context.Background()
	if _, found, release, err := in.t.LockOrGet(ctx, "page", 300*time.Millisecond); found || release == nil || err != nil {
		t.Fatalf("LockOrGet = found %v, held %v, %v; want the lock taken", found, release != nil, err)
	}
	start := time.Now()
	type result struct {
		v   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := in.c.Fetch(ctx, "page", func(context.Context) ([]byte, time.Duration, error) {
			return []byte("mine"), time.Minute, nil
		})
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil || string(r.v) != "mine" {
			t.Fatalf("Fetch = %q, %v; want mine", r.v, r.err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Fetch still waiting a minute after the dead holder's 300 ms lock")
	}
	// Not before the lock expired (load can only make it later).
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("Fetch took %v; want it to wait for the lock's 300 ms", took)
	}
}

// Redis stopped: the cache is only a cache. Fetch computes, Get misses,
// nothing returns an error or stalls; the failures are counted; when Redis
// is back the shared tier works again.
func TestRedisStoppedGivesMisses(t *testing.T) {
	srv := redistest.Start(t)
	rc := redistest.On(t, srv.URL(), "t:")
	in := newInstance(t, rc, testBus(t))
	ctx := context.Background()
	in.c.Set(ctx, "before", []byte("x"), time.Minute)
	if _, ok := in.t.remote.Get(ctx, "before"); !ok {
		t.Fatal("value not in Redis while it runs")
	}
	srv.Stop()
	start := time.Now()
	for i := range 20 {
		v, err := in.c.Fetch(ctx, "page", func(context.Context) ([]byte, time.Duration, error) {
			return []byte("computed"), time.Minute, nil
		})
		if err != nil || string(v) != "computed" {
			t.Fatalf("Fetch %d with Redis down = %q, %v; want computed, nil", i, v, err)
		}
		if _, ok := in.c.Get(ctx, "absent"); ok {
			t.Fatal("Get of an absent key hit with Redis down")
		}
		in.c.Delete(ctx, "page")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("20 rounds with Redis down took %v; want no stalls", took)
	}
	if rc.Failures() == 0 {
		t.Error("no failure counted with Redis down")
	}
	srv.Start()
	redistest.WaitUnpaused(t, rc)
	in.c.Set(ctx, "after", []byte("y"), time.Minute)
	if v, ok := in.t.remote.Get(ctx, "after"); !ok || string(v) != "y" {
		t.Errorf("after Redis came back: %q, %v; want y in Redis", v, ok)
	}
}

// A miss costs two round trips to Redis: the lock (which reads the value
// in the same script) and the value's Set with the lock's release (one
// script); a second Fetch here costs none, and on another instance one.
func TestFetchMissRoundTrips(t *testing.T) {
	rc := redistest.Client(t)
	rt := redistest.Count(rc)
	bus := testBus(t)
	a, b := newInstance(t, rc, bus), newInstance(t, rc, bus)
	ctx := context.Background()
	fn := func(context.Context) ([]byte, time.Duration, error) { return []byte("page"), time.Minute, nil }
	fetch := func(in *instance) int64 {
		t.Helper()
		before := rt.N()
		if v, err := in.c.Fetch(ctx, "k", fn); err != nil || string(v) != "page" {
			t.Fatalf("Fetch = %q, %v; want page", v, err)
		}
		return rt.N() - before
	}
	// Warm up: connections made, scripts loaded (a script's first run costs
	// a second round trip, once per Redis).
	for _, in := range []*instance{a, b} {
		if _, err := in.c.Fetch(ctx, "warm", fn); err != nil {
			t.Fatal(err)
		}
	}
	if n := fetch(a); n != 2 {
		t.Errorf("a miss: %d round trips to Redis; want 2 (lock-or-get, set-and-unlock)", n)
	}
	if _, _, found, release, err := a.t.remote.LockOrGet(ctx, "k", time.Second); !found || release != nil || err != nil {
		t.Errorf("after the miss: found %v, lock taken %v, %v; want the value in Redis and no lock held", found, release != nil, err)
	}
	if n := fetch(a); n != 0 {
		t.Errorf("a local hit: %d round trips; want 0", n)
	}
	if n := fetch(b); n != 1 {
		t.Errorf("another instance's first read: %d round trips; want 1", n)
	}
	if n := fetch(b); n != 0 {
		t.Errorf("its second read: %d round trips; want 0", n)
	}
}

// Dropped keys (superseded versions) leave the local tier at once and
// Redis together, in one DEL dropEvery after the first; Close deletes what
// waits. The DEL's timer is the test's: it runs when the test says.
func TestDropDeletesInOneBatch(t *testing.T) {
	rc := redistest.Client(t)
	rt := redistest.Count(rc)
	in := newInstance(t, rc, testBus(t))
	var timers []func()
	var waits []time.Duration
	in.t.after = func(d time.Duration, f func()) { waits, timers = append(waits, d), append(timers, f) }
	ctx := context.Background()
	keys := []string{"p@1", "q@1", "r@1", "s@1"}
	for _, k := range keys {
		in.c.Set(ctx, k, []byte("old"), time.Minute)
	}
	before := rt.N()
	for _, k := range keys[:3] {
		in.c.Drop(ctx, k)
		if _, ok := in.t.Peek(ctx, k); ok {
			t.Errorf("%s still in the local tier after Drop", k)
		}
	}
	if n := rt.N() - before; n != 0 {
		t.Errorf("three drops cost %d round trips at once; want them batched", n)
	}
	if len(timers) != 1 || waits[0] != dropEvery {
		t.Fatalf("three drops set timers for %v; want one, for %v", waits, dropEvery)
	}
	timers[0]() // dropEvery later
	if n := rt.N() - before; n != 1 {
		t.Errorf("three drops cost %d round trips in all; want 1 (one DEL)", n)
	}
	for _, k := range keys[:3] {
		if _, ok := in.t.remote.Get(ctx, k); ok {
			t.Errorf("%s still in Redis after its DEL", k)
		}
	}
	if _, ok := in.t.remote.Get(ctx, keys[3]); !ok {
		t.Fatal("a key not dropped is gone")
	}
	in.c.Drop(ctx, keys[3])
	in.t.Close()
	if _, ok := in.t.remote.Get(ctx, keys[3]); ok {
		t.Error("a dropped key still in Redis after Close")
	}
}
