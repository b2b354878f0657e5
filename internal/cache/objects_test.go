package cache

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// loader counts its calls and returns value (or err).
type loader struct {
	calls atomic.Int64
	value string
	err   error
}

func (l *loader) load(context.Context) (string, error) {
	l.calls.Add(1)
	return l.value, l.err
}

// A key's value is kept at its version: the same version is a hit, a newer
// one loads and replaces it (the old one is gone, not only shadowed), and a
// reader still at the old version loads afresh without bringing it back.
func TestDecodedVersionReplaces(t *testing.T) {
	ctx := context.Background()
	o := NewObjects(1 << 20)
	defer o.Close()
	d := NewDecoded[string, string](o, "t", 0, nil)
	v1 := &loader{value: "one"}
	for range 3 {
		if got, err := d.Get(ctx, "k", 1, v1.load); err != nil || got != "one" {
			t.Fatalf("version 1: %q, %v", got, err)
		}
	}
	if n := v1.calls.Load(); n != 1 {
		t.Fatalf("version 1 loaded %d times; want 1", n)
	}
	v2 := &loader{value: "two"}
	if got, err := d.Get(ctx, "k", 2, v2.load); err != nil || got != "two" || v2.calls.Load() != 1 {
		t.Fatalf("version 2: %q, %v, %d loads", got, err, v2.calls.Load())
	}
	if _, ok := d.Hit("k", 1); ok {
		t.Fatal("version 1 still kept after version 2 replaced it")
	}
	o.c.CleanUp()
	if n := o.c.EstimatedSize(); n != 1 {
		t.Fatalf("%d entries after a replacement; want 1", n)
	}
	old := &loader{value: "one again"}
	if got, err := d.Get(ctx, "k", 1, old.load); err != nil || got != "one again" {
		t.Fatalf("old version's reader: %q, %v", got, err)
	}
	if got, ok := d.Hit("k", 2); !ok || got != "two" {
		t.Fatalf("an old version's load replaced the newer: %q, %v", got, ok)
	}
	// Two views of one Objects do not see each other's keys.
	e := NewDecoded[string, string](o, "other", 0, nil)
	if _, ok := e.Hit("k", 2); ok {
		t.Fatal("a view sees another's entry")
	}
}

// N concurrent misses of a key at one version load it once; all get its
// value.
func TestDecodedSingleFlight(t *testing.T) {
	ctx := context.Background()
	d := NewDecoded[string, string](nil, "t", 0, nil)
	var calls atomic.Int64
	release := make(chan struct{})
	started := make(chan struct{})
	load := func(context.Context) (string, error) {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		return "v", nil
	}
	const n = 50
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			got, err := d.Get(ctx, "k", 7, load)
			if err == nil && got != "v" {
				err = errors.New("got " + got)
			}
			errs <- err
		})
	}
	<-started
	// Every caller is in Get: either waiting for the load or yet to
	// arrive, when it finds the load's value kept.
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if c := calls.Load(); c != 1 {
		t.Fatalf("%d loads for %d concurrent callers; want 1", c, n)
	}
}

// A waiter whose context ends stops waiting; the load goes on for the
// others and is kept.
func TestDecodedWaiterCancels(t *testing.T) {
	d := NewDecoded[string, string](nil, "t", 0, nil)
	release := make(chan struct{})
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		_, err := d.Get(context.Background(), "k", 1, func(context.Context) (string, error) {
			close(started)
			<-release
			return "v", nil
		})
		done <- err
	}()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Get(ctx, "k", 1, func(context.Context) (string, error) {
		t.Error("a second load ran while the first was running")
		return "", nil
	}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled waiter: %v", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got, ok := d.Hit("k", 1); !ok || got != "v" {
		t.Fatalf("the load's value is not kept: %q, %v", got, ok)
	}
}

// An error is returned to the load's caller and its waiters, and not kept:
// the next Get loads again. A panic's waiters get an error and the next Get
// loads again.
func TestDecodedErrorsNotCached(t *testing.T) {
	ctx := context.Background()
	d := NewDecoded[string, string](nil, "t", 0, nil)
	boom := errors.New("boom")
	bad := &loader{err: boom}
	for i := range 3 {
		if _, err := d.Get(ctx, "k", 1, bad.load); !errors.Is(err, boom) {
			t.Fatalf("try %d: %v; want boom", i, err)
		}
	}
	if n := bad.calls.Load(); n != 3 {
		t.Fatalf("an error was cached: %d loads for 3 gets", n)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("the load's panic did not reach its caller")
			}
		}()
		d.Get(ctx, "k", 1, func(context.Context) (string, error) { panic("load") })
	}()
	good := &loader{value: "ok"}
	if got, err := d.Get(ctx, "k", 1, good.load); err != nil || got != "ok" || good.calls.Load() != 1 {
		t.Fatalf("after errors: %q, %v, %d loads", got, err, good.calls.Load())
	}
}

// Entries are weighed by the view's size function (plus the key and the
// overhead), and those beyond the budget are evicted: the weight kept stays
// within it, and most of what was written is gone.
func TestDecodedByteBudget(t *testing.T) {
	ctx := context.Background()
	const budget = 64 << 10
	o := NewObjects(budget)
	defer o.Close()
	var weighed atomic.Int64
	d := NewDecoded[int, string](o, "t", 0, func(s string) int { weighed.Add(1); return len(s) })
	value := strings.Repeat("x", 1000) // 1200 bytes with the overhead
	const n = 500                      // 600 KB written: ten budgets
	for i := range n {
		if _, err := d.Get(ctx, i, 1, func(context.Context) (string, error) { return value, nil }); err != nil {
			t.Fatal(err)
		}
	}
	o.c.CleanUp()
	if w := weighed.Load(); w != n {
		t.Fatalf("size called %d times for %d values", w, n)
	}
	if got := o.Bytes(); got > budget || got < budget/2 {
		t.Fatalf("%d bytes kept; want within %d and near it", got, budget)
	}
	per := uint64(len(value) + ObjectOverhead)
	if got, want := o.Bytes()%per, uint64(0); got != want {
		t.Fatalf("%d bytes kept is not a multiple of an entry's weight %d: the weigher is not the size function's", o.Bytes(), per)
	}
	kept := 0
	for i := range n {
		if _, ok := d.Hit(i, 1); ok {
			kept++
		}
	}
	if max := budget / int(per); kept > max || kept == 0 {
		t.Fatalf("%d of %d entries kept; at most %d fit", kept, n, max)
	}
	// A value bigger than the whole budget is returned and not kept.
	big := NewDecoded[int, string](o, "big", time.Minute, func(s string) int { return len(s) })
	if got, err := big.Get(ctx, 1, 1, func(context.Context) (string, error) { return strings.Repeat("y", budget*2), nil }); err != nil || len(got) != budget*2 {
		t.Fatalf("a big value: %d bytes, %v", len(got), err)
	}
	o.c.CleanUp()
	if _, ok := big.Hit(1, 1); ok || o.Bytes() > budget {
		t.Fatalf("a value over the budget is kept (%v), %d bytes", ok, o.Bytes())
	}
}

// The budget's split adds up to it and gives Objects its share.
func TestSplitBudget(t *testing.T) {
	for _, c := range []struct{ total, objects int }{
		{256 << 20, 64 << 20},
		{16 << 20, 4 << 20},
		{2 << 20, 1 << 20},
		{1 << 20, 512 << 10},
	} {
		l, o := SplitBudget(c.total)
		if l+o != c.total || o != c.objects {
			t.Errorf("SplitBudget(%d) = %d, %d; want objects %d, adding up", c.total, l, o, c.objects)
		}
	}
}

// Size counts strings, slices' capacity, what pointers reach (once) and
// what interfaces hold, and not time zones.
func TestSize(t *testing.T) {
	type inner struct {
		Name string
		At   time.Time
	}
	type outer struct {
		ID    int64
		Tags  []string
		In    *inner
		Again *inner
		Any   any
	}
	in := &inner{Name: strings.Repeat("n", 100), At: time.Now().In(time.FixedZone("x", 3600))}
	v := outer{ID: 1, Tags: make([]string, 2, 4), In: in, Again: in, Any: "abc"}
	v.Tags[0] = strings.Repeat("t", 50)
	var sz outer
	var szi inner
	want := int(unsafe.Sizeof(sz)) + 4*16 + 50 + int(unsafe.Sizeof(szi)) + 100 + 16 + 3
	if got := Size(v); got != want {
		t.Fatalf("Size = %d; want %d", got, want)
	}
	if Size(nil) != 0 {
		t.Fatal("Size(nil) is not 0")
	}
}

// BenchmarkDecodedHit is a hit at the current version: what a read of the
// newest roars or of a runner's race costs once decoded.
func BenchmarkDecodedHit(b *testing.B) {
	d := NewDecoded[string, []int](nil, "b", 0, nil)
	if _, err := d.Get(context.Background(), "newest", 3, func(context.Context) ([]int, error) { return make([]int, 200), nil }); err != nil {
		b.Fatal(err)
	}
	slug := strings.Clone("spring-10k")
	d.Get(context.Background(), slug, 3, func(context.Context) ([]int, error) { return nil, nil })
	b.Run("constant", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := d.Hit("newest", 3); !ok {
				b.Fatal("miss")
			}
		}
	})
	b.Run("string", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := d.Hit(slug, 3); !ok {
				b.Fatal("miss")
			}
		}
	})
}
