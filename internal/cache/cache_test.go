package cache

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestFetchComputesOnceAndCaches(t *testing.T) {
	synctest.Test(t, fetchComputesOnceAndCaches)
}

func fetchComputesOnceAndCaches(t *testing.T) {
	l := NewLocal(1 << 20)
	defer l.Close()
	c := New(l)
	ctx := context.Background()
	var calls atomic.Int32
	release := make(chan struct{})
	fn := func(context.Context) ([]byte, time.Duration, error) {
		calls.Add(1)
		<-release
		return []byte("v"), time.Minute, nil
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.Fetch(ctx, "k", fn)
			if err != nil || string(v) != "v" {
				t.Errorf("Fetch = %q, %v; want v, nil", v, err)
			}
		}()
	}
	synctest.Wait() // every Fetch is in: one in fn, the others waiting for it
	if n := calls.Load(); n != 1 {
		t.Errorf("while computing: fn called %d times; want 1", n)
	}
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("fn called %d times; want 1", n)
	}
	if _, err := c.Fetch(ctx, "k", fn); err != nil || calls.Load() != 1 {
		t.Errorf("second Fetch called fn again (%d) or failed: %v", calls.Load(), err)
	}
}

func TestFetchDoesNotCacheErrors(t *testing.T) {
	c := New(NewLocal(1 << 20))
	ctx := context.Background()
	boom := errors.New("boom")
	if _, err := c.Fetch(ctx, "k", func(context.Context) ([]byte, time.Duration, error) { return nil, 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("got %v; want boom", err)
	}
	v, err := c.Fetch(ctx, "k", func(context.Context) ([]byte, time.Duration, error) { return []byte("ok"), time.Minute, nil })
	if err != nil || string(v) != "ok" {
		t.Fatalf("got %q, %v; want ok", v, err)
	}
}

func TestDeleteAndTTL(t *testing.T) {
	synctest.Test(t, deleteAndTTL)
}

func deleteAndTTL(t *testing.T) {
	l := NewLocal(1 << 20)
	defer l.Close()
	c := New(l)
	ctx := context.Background()
	c.Set(ctx, "a", []byte("1"), time.Minute)
	c.Set(ctx, "b", []byte("2"), 10*time.Millisecond)
	c.Delete(ctx, "a")
	if _, ok := c.Get(ctx, "a"); ok {
		t.Error("a still present after Delete")
	}
	time.Sleep(10*time.Millisecond - time.Nanosecond) // the bubble's clock: no real wait
	if _, ok := c.Get(ctx, "b"); !ok {
		t.Error("b gone before its ttl")
	}
	time.Sleep(time.Nanosecond)
	if _, ok := c.Get(ctx, "b"); ok {
		t.Error("b still present after its ttl")
	}
	if h, m := c.Stats(); h != 1 || m != 2 {
		t.Errorf("stats = %d hits, %d misses; want 1, 2", h, m)
	}
}

func TestKeyAndFragment(t *testing.T) {
	if got := Key("meet", "best", "abc", int64(7), 3); got != "meet:best:abc:7:3" {
		t.Errorf("Key = %q", got)
	}
	c := New(NewLocal(1 << 20))
	ctx := context.Background()
	renders := 0
	render := func(v string) func(context.Context, *bytes.Buffer) error {
		return func(_ context.Context, w *bytes.Buffer) error {
			renders++
			w.WriteString(v)
			return nil
		}
	}
	a, _ := c.Fragment(ctx, Key("f", "x", 1), time.Minute, render("one"))
	b, _ := c.Fragment(ctx, Key("f", "x", 1), time.Minute, render("stale"))
	n, _ := c.Fragment(ctx, Key("f", "x", 2), time.Minute, render("two")) // the thing changed: new version
	if string(a) != "one" || string(b) != "one" || string(n) != "two" || renders != 2 {
		t.Errorf("fragments %q %q %q after %d renders; want one one two after 2", a, b, n, renders)
	}
}
