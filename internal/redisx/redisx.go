// Package redisx is the guard every use of the shared Redis goes through in
// cluster mode (the cache's shared tier, versions, rate limits): each call
// gets a short deadline, and a failure is counted, logged at a bounded rate
// and opens a short pause during which callers skip Redis at once and take
// their fallback (a cache miss, the database, the local limiter). Redis is
// never a reason for a 5xx or a long stall.
//
// Use Do around one Redis command or script: it returns the context to run
// it with, or ok false while Redis is paused; report the command's error
// with Fail.
package redisx

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Defaults of a Client.
const (
	// Timeout bounds one command.
	Timeout = 200 * time.Millisecond
	// Pause is how long Redis is skipped after a failure.
	Pause = 500 * time.Millisecond
	// LogEvery bounds the failure logs: one per LogEvery at most.
	LogEvery = 10 * time.Second
)

// Client is a guarded Redis client; its keys all begin with Prefix.
type Client struct {
	R      redis.UniversalClient
	Prefix string

	Timeout time.Duration
	Pause   time.Duration

	log      *slog.Logger
	failures atomic.Int64
	skipped  atomic.Int64
	until    atomic.Int64 // unix nanoseconds until which Redis is skipped
	logged   atomic.Int64 // unix nanoseconds of the last failure logged
}

// New guards r; prefix begins every key ("tutti:"), so that several sites or
// tests share one Redis.
func New(r redis.UniversalClient, prefix string, log *slog.Logger) *Client {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Client{R: r, Prefix: prefix, Timeout: Timeout, Pause: Pause, log: log}
}

// Key is the prefixed key of the given parts, joined with ':'.
func (c *Client) Key(parts ...string) string {
	n := len(c.Prefix)
	for _, p := range parts {
		n += len(p) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, c.Prefix...)
	for i, p := range parts {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, p...)
	}
	return string(b)
}

// Do returns the context for one command, bounded by the Timeout, and its
// cancel; ok is false while Redis is paused after a failure (take the
// fallback without trying).
func (c *Client) Do(ctx context.Context) (_ context.Context, cancel context.CancelFunc, ok bool) {
	if c.Paused() {
		c.skipped.Add(1)
		return ctx, func() {}, false
	}
	ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), c.Timeout)
	return ctx, cancel, true
}

// Paused reports whether Redis is skipped now, after a failure.
func (c *Client) Paused() bool { return time.Now().UnixNano() < c.until.Load() }

// Fail records err of a command (nil and redis.Nil, "no such key", are not
// failures) and reports whether it was one. A failure pauses Redis for the
// Pause and is logged, once per LogEvery at most.
func (c *Client) Fail(op string, err error) bool {
	if err == nil || errors.Is(err, redis.Nil) {
		return false
	}
	now := time.Now().UnixNano()
	c.failures.Add(1)
	c.until.Store(now + int64(c.Pause))
	if last := c.logged.Load(); now-last >= int64(LogEvery) && c.logged.CompareAndSwap(last, now) {
		c.log.Warn("redis unavailable: falling back", "op", op, "err", err, "failures", c.failures.Load())
	}
	return true
}

// Failures is the count of failed commands since start.
func (c *Client) Failures() int64 { return c.failures.Load() }

// Skipped is the count of commands not tried because Redis was paused.
func (c *Client) Skipped() int64 { return c.skipped.Load() }
