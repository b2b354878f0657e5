package room

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tutti-dev/tutti/internal/redisx"
)

// Local is a Store in this process (embedded mode).
type Local struct {
	mu     sync.Mutex
	next   map[string]time.Time // a room's theoretical next slot (GCRA's TAT)
	counts map[string]*counted
}

type counted struct {
	who   map[string]struct{}
	until time.Time
}

// NewLocal is an empty Local.
func NewLocal() *Local {
	return &Local{next: map[string]time.Time{}, counts: map[string]*counted{}}
}

// Reserve implements Store: the generic cell rate algorithm, with every
// arrival taking the next slot instead of being refused.
func (l *Local) Reserve(_ context.Context, key string, now, floor time.Time, every time.Duration, burst int) (time.Time, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	tat := later(l.next[key], now, floor)
	l.next[key] = tat.Add(every)
	return later(now, floor, tat.Add(-time.Duration(burst-1)*every)), nil
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
// While Redis cannot be asked it keeps the counts in this process (a Local):
// the room then admits per instance, not at all.
type Redis struct {
	c     *redisx.Client
	local *Local
}

// NewRedis is a Store on c.
func NewRedis(c *redisx.Client) *Redis { return &Redis{c: c, local: NewLocal()} }

// reserve is Local.Reserve in one step on Redis; times in microseconds.
var reserve = redis.NewScript(`
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local now, floor, every, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
tat = math.max(tat, now, floor)
redis.call('SET', KEYS[1], string.format('%d', tat + every), 'PX', math.floor(math.max(tat + every - now, 0) / 1000) + 3600000)
return string.format('%d', math.max(now, floor, tat - (burst - 1) * every))
`)

// Reserve implements Store.
func (r *Redis) Reserve(ctx context.Context, key string, now, floor time.Time, every time.Duration, burst int) (time.Time, error) {
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return r.local.Reserve(ctx, key, now, floor, every, burst)
	}
	defer cancel()
	var f int64
	if !floor.IsZero() {
		f = floor.UnixMicro()
	}
	at, err := reserve.Run(dctx, r.c.R, []string{r.c.Key(key)}, now.UnixMicro(), f, every.Microseconds(), burst).Text()
	if r.c.Fail("room reserve", err) {
		return r.local.Reserve(ctx, key, now, floor, every, burst)
	}
	n, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMicro(n), nil
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
