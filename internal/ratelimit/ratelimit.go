// Package ratelimit bounds how often a key (an IP, an account, a user) may do
// something: log in, sign up, post. Limiter is the consumer-facing interface;
// Local is the in-process implementation (token buckets from
// golang.org/x/time/rate); Redis (cluster mode) shares the counts of every
// instance (GCRA). A Maker builds either: the core hands one to everything
// that limits.
//
// Use it on any action a client can repeat cheaply that costs the site
// dearly or floods other users: a password check, an account, a post, a
// mail. Keep the Limiter in the app's Deps (tests pass Unlimited), ask it
// before the work, and refuse with errs.Slow(retryAfter, ...): a 429 with
// Retry-After, and a form shown again with the wait.
package ratelimit

import (
	"context"
	"time"

	"github.com/maypok86/otter/v2"
	"golang.org/x/time/rate"
)

// Limiter decides whether key may act now; if not, it says when to retry.
type Limiter interface {
	Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration)
}

// MaxKeys bounds the keys a Local tracks. Past it the least useful buckets
// are evicted (which only forgives their past use), so memory stays bounded
// whatever an attacker sends.
const MaxKeys = 200_000

// Local is an in-process limiter: a token bucket per key, refilled one token
// per `every`, holding at most burst. A bucket unused long enough to be full
// again is indistinguishable from a new one, so it is dropped then.
type Local struct {
	every time.Duration
	burst int
	c     *otter.Cache[string, *rate.Limiter]
	now   func() time.Time
}

// NewLocal makes a limiter allowing burst actions at once and one more per
// every afterwards. every <= 0 means no limit at all.
func NewLocal(every time.Duration, burst int) *Local {
	burst = max(burst, 1)
	idle := time.Duration(burst) * every
	if idle <= 0 {
		idle = time.Minute
	}
	return &Local{
		every: every,
		burst: burst,
		now:   time.Now,
		c: otter.Must(&otter.Options[string, *rate.Limiter]{
			MaximumSize:      MaxKeys,
			ExpiryCalculator: otter.ExpiryAccessing[string, *rate.Limiter](idle + time.Second),
		}),
	}
}

// Allow takes one token from key's bucket; without one it reports how long
// until the next token.
func (l *Local) Allow(_ context.Context, key string) (bool, time.Duration) {
	if l.every <= 0 {
		return true, 0
	}
	lim, _ := l.c.ComputeIfAbsent(key, func() (*rate.Limiter, bool) {
		return rate.NewLimiter(rate.Every(l.every), l.burst), false
	})
	return take(lim, l.now(), l.every)
}

// take takes one token from lim at now; without one it reports how long
// until the next (every, if the bucket can never give one).
func take(lim *rate.Limiter, now time.Time, every time.Duration) (bool, time.Duration) {
	r := lim.ReserveN(now, 1)
	if !r.OK() {
		return false, every
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

// Bucket is one token bucket, whatever the key: a limit of the whole
// process (the mail it sends), with no cache of keys behind it.
type Bucket struct {
	lim   *rate.Limiter
	every time.Duration
}

// NewBucket allows burst actions at once and one more per every
// afterwards; every > 0.
func NewBucket(every time.Duration, burst int) *Bucket {
	return &Bucket{lim: rate.NewLimiter(rate.Every(every), max(burst, 1)), every: every}
}

// Allow implements Limiter.
func (b *Bucket) Allow(context.Context, string) (bool, time.Duration) {
	return take(b.lim, time.Now(), b.every)
}

// Len is the number of keys tracked (for tests and metrics).
func (l *Local) Len() int { return l.c.EstimatedSize() }

// Unlimited allows everything (tests, load tests).
type Unlimited struct{}

// Allow implements Limiter.
func (Unlimited) Allow(context.Context, string) (bool, time.Duration) { return true, 0 }
