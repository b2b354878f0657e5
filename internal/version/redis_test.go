package version_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/redisx"
	"github.com/tutti-dev/tutti/internal/redisx/redistest"
	"github.com/tutti-dev/tutti/internal/version"
)

func newRedis(t *testing.T, c *redisx.Client, tb *table) *version.Redis {
	t.Helper()
	r := version.NewRedis(c)
	t.Cleanup(r.Close)
	r.Register("s", tb.load)
	return r
}

// Two instances share Redis and no bus: a change committed through one is
// seen by the other on its next Get; a reader's older load never lowers
// the stamp; the database is read once per id, not per Get.
func TestRedisTwoInstancesNoBus(t *testing.T) {
	c := redistest.Client(t)
	tb := &table{v: map[string]int64{"a": 5}}
	one, two := newRedis(t, c, tb), newRedis(t, c, tb)
	if v := get(t, one, "a"); v != 5 {
		t.Fatalf("one: %d, want 5", v)
	}
	if v := get(t, two, "a"); v != 5 {
		t.Fatalf("two: %d, want 5", v)
	}
	if n := tb.readsSoFar(); n != 1 {
		t.Fatalf("%d database reads; want 1 (the second instance finds Redis's copy)", n)
	}
	one.Raise("s", "a", version.Stamp{V: tb.bump("a"), Until: 99})
	if st, err := two.Get(context.Background(), "s", "a"); err != nil || st != (version.Stamp{V: 6, Until: 99}) {
		t.Fatalf("two after one's Raise: %+v, %v; want {6 99}", st, err)
	}
	tb.bump("a")
	two.Bump("s", "a")
	if v := get(t, one, "a"); v != 7 {
		t.Fatalf("one after two's Bump: %d, want 7", v)
	}
	one.Raise("s", "a", version.Stamp{V: 3}) // an old read
	if v := get(t, two, "a"); v != 7 {
		t.Fatalf("after an older Raise: %d, want 7", v)
	}
	if st, err := two.Fresh(context.Background(), "s", "a"); err != nil || st.V != 7 {
		t.Fatalf("Fresh = %+v, %v; want 7", st, err)
	}
	if n := tb.readsSoFar(); n != 1 {
		t.Fatalf("%d database reads; want still 1", n)
	}
	// Bump of an id Redis does not have: the database's stamp, read after
	// the commit, goes there (a Get under way cannot leave an older one).
	tb.v["b"] = 1
	tb.bump("b")
	one.Bump("s", "b")
	if v := get(t, two, "b"); v != 2 {
		t.Fatalf("b after a Bump of an unknown id: %d, want 2", v)
	}
	if _, err := one.Get(context.Background(), "s", "zz"); !errors.Is(err, errUnknown) {
		t.Fatalf("unknown id: %v; want its error", err)
	}
	one.Forget("s", "a")
	reads := tb.readsSoFar()
	get(t, two, "a")
	if tb.readsSoFar() != reads+1 {
		t.Error("after Forget, the database was not read again")
	}
}

// Redis stopped: Get reads the database every time (never stale), with no
// error to the caller; a change made meanwhile reaches Redis once it is
// back, even though the copy of before the outage would be lower.
func TestRedisStoppedFallsBackToDatabase(t *testing.T) {
	srv := redistest.Start(t)
	c := redistest.On(t, srv.URL(), "t:")
	tb := &table{v: map[string]int64{"a": 1}}
	one, two := newRedis(t, c, tb), newRedis(t, c, tb)
	get(t, one, "a")
	srv.Stop()
	one.Raise("s", "a", version.Stamp{V: tb.bump("a")})
	start := time.Now()
	for range 5 {
		if v := get(t, two, "a"); v != 2 {
			t.Fatalf("two with Redis down: %d, want 2 from the database", v)
		}
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("5 Gets with Redis down took %v", took)
	}
	if one.Pending() != 1 {
		t.Errorf("%d changes waiting for Redis; want 1", one.Pending())
	}
	srv.Start() // empty: an old copy would be lost anyway; put one back
	ctx := context.Background()
	if err := c.R.SetNX(ctx, c.Key("v", "s", "a"), "1:0", 0).Err(); err != nil { // unless the retry came first
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for one.Pending() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	reads := tb.readsSoFar()
	if v := get(t, two, "a"); v != 2 {
		t.Fatalf("two after Redis came back: %d, want 2 (the change made during the outage)", v)
	}
	if tb.readsSoFar() != reads {
		t.Error("two read the database with Redis back")
	}
}

// Forget with Redis down: the copy, which Redis keeps across the outage,
// is deleted once Redis answers again, so no instance finds a stamp (and
// the cached pages keyed by it) of a thing that is gone.
func TestRedisForgetDuringOutage(t *testing.T) {
	srv := redistest.Start(t)
	srv.Keep()
	c := redistest.On(t, srv.URL(), "t:")
	tb := &table{v: map[string]int64{"a": 4}}
	one, two := newRedis(t, c, tb), newRedis(t, c, tb)
	if v := get(t, one, "a"); v != 4 {
		t.Fatalf("a: %d, want 4", v)
	}
	srv.Stop()
	delete(tb.v, "a") // deleted in the database while Redis is down
	one.Forget("s", "a")
	if one.Pending() != 1 {
		t.Fatalf("%d changes waiting for Redis; want the Forget", one.Pending())
	}
	srv.Start()
	ctx := context.Background()
	if n, err := c.R.Exists(ctx, c.Key("v", "s", "a")).Result(); err != nil || n != 1 {
		t.Fatalf("Redis kept the copy across its restart: %d (%v); the test needs it", n, err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for one.Pending() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n, err := c.R.Exists(ctx, c.Key("v", "s", "a")).Result(); err != nil || n != 0 {
		t.Errorf("the copy of a forgotten id is still in Redis: %d (%v)", n, err)
	}
	if _, err := two.Get(ctx, "s", "a"); !errors.Is(err, errUnknown) {
		t.Errorf("two's Get of the forgotten id: %v; want its error", err)
	}
}

// Under a request's memo the second Get of the request's first stamp costs
// no round trip, and only that one: a third Get, another id's, and Fresh
// read Redis; a change made meanwhile through another instance is seen by
// every read after the one taken.
func TestRedisMemoSavesTheSecondRead(t *testing.T) {
	c := redistest.Client(t)
	rt := redistest.Count(c)
	tb := &table{v: map[string]int64{"a": 5, "b": 1}}
	one, two := newRedis(t, c, tb), newRedis(t, c, tb)
	get(t, one, "a") // Redis's copies made, scripts loaded
	get(t, one, "b")
	ctx := version.WithMemo(context.Background())
	read := func(s version.Versions, id string, fresh bool, want int64) int64 {
		t.Helper()
		before := rt.N()
		f := s.Get
		if fresh {
			f = s.Fresh
		}
		st, err := f(ctx, "s", id)
		if err != nil || st.V != want {
			t.Fatalf("%s: %+v, %v; want %d", id, st, err, want)
		}
		return rt.N() - before
	}
	if n := read(one, "a", false, 5); n != 1 {
		t.Errorf("the request's first Get: %d round trips; want 1", n)
	}
	two.Raise("s", "a", version.Stamp{V: tb.bump("a")})
	if n := read(one, "a", false, 5); n != 0 {
		t.Errorf("its second Get: %d round trips; want 0 (the kept stamp, read before the change)", n)
	}
	if n := read(one, "a", false, 6); n != 1 {
		t.Errorf("a third Get: %d round trips; want 1, and the change", n)
	}
	if n := read(one, "b", false, 1); n != 1 {
		t.Errorf("another id: %d round trips; want 1", n)
	}
	if n := read(one, "b", false, 1); n != 1 {
		t.Errorf("another id again: %d round trips; want 1 (one stamp is kept a request)", n)
	}
	ctx = version.WithMemo(context.Background()) // the next request
	read(one, "a", false, 6)
	if n := read(one, "a", true, 6); n != 1 {
		t.Errorf("Fresh after a Get: %d round trips; want 1 (Fresh reads as committed)", n)
	}
	if n := read(one, "a", false, 6); n != 0 {
		t.Errorf("Get after Fresh: %d round trips; want 0 (Fresh took nothing)", n)
	}
}
