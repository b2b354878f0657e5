package ratelimit

import (
	"context"
	"time"

	"github.com/go-redis/redis_rate/v10"

	"github.com/tutti-dev/tutti/internal/redisx"
)

// Maker builds the limiter named name (its keys' namespace: "login-ip",
// "roar-post") allowing burst actions at once and one more per every. Its
// Allow's keys need no namespace of their own: an IP address, a user id. The
// core hands one Maker to everything that limits, so that cluster mode
// switches all of them to Redis in one place.
type Maker func(name string, every time.Duration, burst int) Limiter

// LocalMaker makes in-process limiters (embedded mode).
func LocalMaker(_ string, every time.Duration, burst int) Limiter { return NewLocal(every, burst) }

// Redis is a limiter shared by every instance: GCRA in Redis
// (github.com/go-redis/redis_rate), with Local's semantics (burst at once,
// one more per every). While Redis cannot be asked it counts in this
// process instead (a local limiter of the same rate): it fails to local, not
// open.
type Redis struct {
	c     *redisx.Client
	lim   *redis_rate.Limiter
	name  string
	limit redis_rate.Limit // Period: the every of one action
	local *Local
}

// RedisMaker makes Redis limiters on c.
func RedisMaker(c *redisx.Client) Maker {
	lim := redis_rate.NewLimiter(c.R)
	return func(name string, every time.Duration, burst int) Limiter {
		burst = max(burst, 1)
		return &Redis{c: c, lim: lim, name: name,
			limit: redis_rate.Limit{Rate: 1, Period: every, Burst: burst},
			local: NewLocal(every, burst)}
	}
}

// Allow implements Limiter.
func (r *Redis) Allow(ctx context.Context, key string) (bool, time.Duration) {
	if r.limit.Period <= 0 {
		return true, 0
	}
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return r.local.Allow(ctx, key)
	}
	defer cancel()
	res, err := r.lim.Allow(dctx, r.c.Key("rl", r.name, key), r.limit)
	if r.c.Fail("rate limit", err) {
		return r.local.Allow(ctx, key)
	}
	if res.Allowed > 0 {
		return true, 0
	}
	return false, max(res.RetryAfter, time.Millisecond)
}
