package room

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tutti-dev/tutti/internal/redisx"
)

// Local is a Store in this process (embedded mode).
type Local struct {
	mu     sync.Mutex
	rooms  map[string]*line
	counts map[string]*counted
}

// line is a room's clock and next free slot.
type line struct {
	a, t time.Time // the admission time a at the wall clock's t
	l    float64   // the level since t
	tat  time.Time // the theoretical next slot (GCRA's TAT), admission time
}

// move runs l's clock to now at its level, then sets the level for what
// follows: the integral of the level, one step per call. The clock never
// runs back: a call whose now is older than the latest one seen (a
// request that took its now before another's, answered after it) reads
// the clock as it is. Admission time never passes the latest wall time
// seen (a <= t).
func (l *line) move(now time.Time, level float64) Clock {
	switch {
	case l.t.IsZero():
		l.a, l.t = now, now
	case now.After(l.t):
		l.a = l.a.Add(time.Duration(float64(now.Sub(l.t)) * l.l))
		l.t = now
	}
	if l.a.After(l.t) {
		l.a = l.t
	}
	l.l = level
	return Clock{At: l.a, Level: level}
}

type counted struct {
	who   map[string]struct{}
	until time.Time
}

// NewLocal is an empty Local.
func NewLocal() *Local {
	return &Local{rooms: map[string]*line{}, counts: map[string]*counted{}}
}

func (l *Local) line(key string) *line {
	ln := l.rooms[key]
	if ln == nil {
		ln = &line{}
		l.rooms[key] = ln
	}
	return ln
}

// Reserve implements Store: the generic cell rate algorithm on the
// admission clock, with every arrival taking the next slot instead of
// being refused.
func (l *Local) Reserve(_ context.Context, key string, now, floor time.Time, every time.Duration, burst int, level float64) (time.Time, Clock, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	ln := l.line(key)
	c := ln.move(now, level)
	if !later(ln.tat, floor).After(c.At) { // nobody waits: catch up
		ln.a, c.At = ln.t, ln.t
	}
	tat := later(ln.tat, c.At, floor)
	ln.tat = tat.Add(every)
	return later(c.At, floor, tat.Add(-time.Duration(burst-1)*every)), c, nil
}

// Clock implements Store.
func (l *Local) Clock(_ context.Context, key string, now time.Time, level float64) (Clock, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.line(key).move(now, level), nil
}

// Add implements Store.
func (l *Local) Add(_ context.Context, key, who string, ttl time.Duration) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	for k, c := range l.counts { // few keys: one per opening
		if now.After(c.until) {
			delete(l.counts, k)
		}
	}
	c := l.counts[key]
	if c == nil {
		c = &counted{who: map[string]struct{}{}}
		l.counts[key] = c
	}
	c.who[who] = struct{}{}
	c.until = now.Add(ttl)
	return int64(len(c.who)), nil
}

// Count implements Store.
func (l *Local) Count(_ context.Context, key string) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.counts[key]; c != nil {
		return int64(len(c.who)), nil
	}
	return 0, nil
}

func later(ts ...time.Time) time.Time {
	var m time.Time
	for _, t := range ts {
		if t.After(m) {
			m = t
		}
	}
	return m
}

// Redis is a Store in Redis, shared by every instance (cluster mode).
// Each call publishes this instance's level (kept LevelTTL) and runs the
// room's clock at the mean of the live instances' levels.
// While Redis cannot be asked it keeps the counts in this process (a Local):
// the room then admits per instance, not at all. Redis keeps no line
// across its restart here either: in both cases those who arrive queue
// behind the line's tail as each instance knows it (Rooms), not ahead
// of those waiting.
type Redis struct {
	c     *redisx.Client
	local *Local
	id    string
}

// LevelTTL is how long an instance's published level counts.
const LevelTTL = 5 * time.Second

// NewRedis is a Store on c.
func NewRedis(c *redisx.Client) *Redis {
	var b [8]byte
	rand.Read(b[:])
	return &Redis{c: c, local: NewLocal(), id: hex.EncodeToString(b[:])}
}

// line is Local's clock and GCRA in one step on Redis; times in
// microseconds. KEYS: the room's line (a hash: a, t, l, tat), its levels
// (a hash: instance -> "level expiry"). ARGV: now, instance, level, ttl,
// and to reserve: floor, every, burst. It returns the admission time, the
// level, and the slot if it reserved.
var script = redis.NewScript(`
local now, ttl = tonumber(ARGV[1]), tonumber(ARGV[4])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3] .. ' ' .. string.format('%d', now + ttl))
redis.call('PEXPIRE', KEYS[2], 3600000)
local sum, n = 0, 0
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  local l, e = string.match(all[i + 1], '^(%S+) (%S+)$')
  if not e or tonumber(e) < now then
    redis.call('HDEL', KEYS[2], all[i])
  else
    sum, n = sum + tonumber(l), n + 1
  end
end
local level = sum / n
local s = redis.call('HMGET', KEYS[1], 'a', 't', 'l', 'tat')
local a, t = now, now
if s[1] then
  a, t = tonumber(s[1]), tonumber(s[2])
  if now > t then
    a, t = a + math.floor((now - t) * tonumber(s[3])), now
  end
  a = math.min(a, t)
end
local tat = tonumber(s[4] or '0')
local out = {string.format('%d', a), tostring(level)}
local keep = 3600000
if ARGV[5] then
  local floor, every, burst = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
  if math.max(tat, floor) <= a then
    a = t
    out[1] = string.format('%d', a)
  end
  tat = math.max(tat, a, floor)
  out[3] = string.format('%d', math.max(a, floor, tat - (burst - 1) * every))
  tat = tat + every
  keep = keep + math.floor(math.max(tat - now, 0) / 1000)
end
redis.call('HSET', KEYS[1], 'a', string.format('%d', a), 't', string.format('%d', t), 'l', tostring(level), 'tat', string.format('%d', tat))
redis.call('PEXPIRE', KEYS[1], keep)
return out
`)

func (r *Redis) run(ctx context.Context, key string, now time.Time, level float64, reserve ...any) ([]string, error) {
	args := append([]any{now.UnixMicro(), r.id, strconv.FormatFloat(level, 'g', 6, 64), LevelTTL.Microseconds()}, reserve...)
	k := "{" + key + "}"
	return script.Run(ctx, r.c.R, []string{r.c.Key(k, "line"), r.c.Key(k, "levels")}, args...).StringSlice()
}

func clock(out []string) (Clock, error) {
	a, err1 := strconv.ParseInt(out[0], 10, 64)
	l, err2 := strconv.ParseFloat(out[1], 64)
	if err := errors.Join(err1, err2); err != nil {
		return Clock{}, fmt.Errorf("room: clock %q: %w", out, err)
	}
	return Clock{At: time.UnixMicro(a), Level: l}, nil
}

// Reserve implements Store.
func (r *Redis) Reserve(ctx context.Context, key string, now, floor time.Time, every time.Duration, burst int, level float64) (time.Time, Clock, error) {
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return r.local.Reserve(ctx, key, now, floor, every, burst, level)
	}
	defer cancel()
	var f int64
	if !floor.IsZero() {
		f = floor.UnixMicro()
	}
	out, err := r.run(dctx, key, now, level, f, every.Microseconds(), burst)
	if r.c.Fail("room reserve", err) {
		return r.local.Reserve(ctx, key, now, floor, every, burst, level)
	}
	if len(out) != 3 {
		return time.Time{}, Clock{}, fmt.Errorf("room: reserve returned %q", out)
	}
	c, err := clock(out)
	if err != nil {
		return time.Time{}, Clock{}, err
	}
	at, err := strconv.ParseInt(out[2], 10, 64)
	if err != nil {
		return time.Time{}, Clock{}, err
	}
	return time.UnixMicro(at), c, nil
}

// Clock implements Store.
func (r *Redis) Clock(ctx context.Context, key string, now time.Time, level float64) (Clock, error) {
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return r.local.Clock(ctx, key, now, level)
	}
	defer cancel()
	out, err := r.run(dctx, key, now, level)
	if r.c.Fail("room clock", err) {
		return r.local.Clock(ctx, key, now, level)
	}
	if len(out) != 2 {
		return Clock{}, fmt.Errorf("room: clock returned %q", out)
	}
	return clock(out)
}

// Add implements Store: a set of who.
func (r *Redis) Add(ctx context.Context, key, who string, ttl time.Duration) (int64, error) {
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return r.local.Add(ctx, key, who, ttl)
	}
	defer cancel()
	p := r.c.R.TxPipeline()
	p.SAdd(dctx, r.c.Key(key), who)
	p.PExpire(dctx, r.c.Key(key), ttl)
	n := p.SCard(dctx, r.c.Key(key))
	if _, err := p.Exec(dctx); r.c.Fail("room add", err) {
		return r.local.Add(ctx, key, who, ttl)
	}
	return n.Val(), nil
}

// Count implements Store; while Redis cannot be asked, this instance's own
// count (joins it took then).
func (r *Redis) Count(ctx context.Context, key string) (int64, error) {
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return r.local.Count(ctx, key)
	}
	defer cancel()
	n, err := r.c.R.SCard(dctx, r.c.Key(key)).Result()
	if r.c.Fail("room count", err) {
		return r.local.Count(ctx, key)
	}
	return n, nil
}
