package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/redisx/redistest"
)

// Two instances' limiters of one name share the counts through Redis: a
// burst of 3 is 3 in all, not 3 each; another name or key counts apart.
func TestRedisSharedBetweenInstances(t *testing.T) {
	c := redistest.Client(t)
	one := ratelimit.RedisMaker(c)("login", time.Minute, 3)
	two := ratelimit.RedisMaker(c)("login", time.Minute, 3)
	ctx := context.Background()
	for i, l := range []ratelimit.Limiter{one, two, one} {
		if ok, _ := l.Allow(ctx, "ip:1"); !ok {
			t.Fatalf("attempt %d refused within the burst", i+1)
		}
	}
	ok, retry := two.Allow(ctx, "ip:1")
	if ok {
		t.Fatal("fourth attempt (through the other instance) allowed; want refused")
	}
	if retry <= 50*time.Second || retry > time.Minute {
		t.Errorf("retry after %v; want about a minute", retry)
	}
	if ok, _ := one.Allow(ctx, "ip:2"); !ok {
		t.Error("another key refused")
	}
	if ok, _ := ratelimit.RedisMaker(c)("signup", time.Minute, 3).Allow(ctx, "ip:1"); !ok {
		t.Error("another limiter's key refused")
	}
	if c.Failures() != 0 {
		t.Errorf("%d Redis failures; want 0", c.Failures())
	}
}

// Redis stopped: each instance limits locally (fails to local, not open),
// with no error; once Redis is back the shared counts apply again.
func TestRedisStoppedLimitsLocally(t *testing.T) {
	srv := redistest.Start(t)
	c := redistest.On(t, srv.URL(), "t:")
	l := ratelimit.RedisMaker(c)("post", time.Minute, 2)
	ctx := context.Background()
	srv.Stop()
	got := 0
	for range 5 {
		if ok, _ := l.Allow(ctx, "u1"); ok {
			got++
		}
	}
	if got != 2 {
		t.Errorf("%d of 5 allowed with Redis down; want the burst, 2", got)
	}
	if c.Failures() == 0 {
		t.Error("no failure counted")
	}
	srv.Start()
	redistest.WaitUnpaused(t, c)
	if ok, _ := l.Allow(ctx, "u1"); !ok {
		t.Error("refused by Redis's fresh count after it came back")
	}
	if n, _ := c.R.Exists(ctx, "rate:"+c.Key("rl", "post", "u1")).Result(); n != 1 {
		t.Error("the count is not in Redis after it came back")
	}
}
