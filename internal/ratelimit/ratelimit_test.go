package ratelimit

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestLocal(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name    string
		every   time.Duration
		burst   int
		tries   int
		allowed int
	}{
		{"burst then refused", 6 * time.Second, 10, 15, 10},
		{"burst of one", time.Minute, 1, 3, 1},
		{"zero burst acts as one", time.Minute, 0, 3, 1},
		{"no limit", 0, 1, 50, 50},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := NewLocal(c.every, c.burst)
			l.now = func() time.Time { return now }
			got := 0
			for i := 0; i < c.tries; i++ {
				ok, retry := l.Allow(ctx, "k")
				if ok {
					got++
					continue
				}
				if retry <= 0 || retry > c.every {
					t.Errorf("retryAfter = %v; want in (0, %v]", retry, c.every)
				}
			}
			if got != c.allowed {
				t.Errorf("allowed %d of %d; want %d", got, c.tries, c.allowed)
			}
		})
	}
}

func TestLocalRefillsAndKeysAreSeparate(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLocal(time.Minute, 2)
	l.now = func() time.Time { return now }
	for i := 0; i < 2; i++ {
		if ok, _ := l.Allow(ctx, "a"); !ok {
			t.Fatalf("try %d refused; want allowed", i)
		}
	}
	if ok, _ := l.Allow(ctx, "a"); ok {
		t.Fatal("third try allowed; want refused")
	}
	if ok, _ := l.Allow(ctx, "b"); !ok {
		t.Fatal("other key refused; want allowed")
	}
	now = now.Add(time.Minute)
	if ok, _ := l.Allow(ctx, "a"); !ok {
		t.Fatal("after a refill period: refused; want allowed")
	}
	if ok, _ := l.Allow(ctx, "a"); ok {
		t.Fatal("only one token came back; second try allowed")
	}
}

func TestLocalBounded(t *testing.T) {
	ctx := context.Background()
	l := NewLocal(time.Minute, 1)
	for i := 0; i < MaxKeys+5000; i++ {
		l.Allow(ctx, fmt.Sprint("k", i))
	}
	l.c.CleanUp()
	if n := l.Len(); n > MaxKeys {
		t.Errorf("tracked %d keys; want at most %d", n, MaxKeys)
	}
}

// A Bucket is one bucket whatever the key: the burst at once, then a
// refusal that says when the next token comes.
func TestBucketIgnoresKeys(t *testing.T) {
	b := NewBucket(time.Hour, 2)
	ctx := context.Background()
	for _, key := range []string{"a", "b"} {
		if ok, _ := b.Allow(ctx, key); !ok {
			t.Fatalf("%s refused within the burst", key)
		}
	}
	ok, after := b.Allow(ctx, "c")
	if ok || after < 59*time.Minute || after > time.Hour {
		t.Errorf("third action, another key: allowed %v, retry after %v; want refused for about an hour", ok, after)
	}
}
