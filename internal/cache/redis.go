package cache

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tutti-dev/tutti/internal/redisx"
)

// Redis is the shared backend of cluster mode: every instance reads and
// writes the same entries, under the client's prefix and "c:". It is only a
// cache: when Redis fails or is slow (redisx's deadline), a Get is a miss
// and a Set or Delete is dropped; the failure is counted and logged by the
// client, never returned.
type Redis struct {
	c *redisx.Client
}

// NewRedis makes the shared backend on c.
func NewRedis(c *redisx.Client) *Redis { return &Redis{c: c} }

func (r *Redis) key(k string) string { return r.c.Key("c", k) }

// Get implements Backend.
func (r *Redis) Get(ctx context.Context, key string) ([]byte, bool) {
	v, _, ok := r.GetTTL(ctx, key)
	return v, ok
}

// GetTTL returns the value under key and how long it has left to live.
func (r *Redis) GetTTL(ctx context.Context, key string) ([]byte, time.Duration, bool) {
	ctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return nil, 0, false
	}
	defer cancel()
	k := r.key(key)
	var get *redis.StringCmd
	var ttl *redis.DurationCmd
	_, err := r.c.R.Pipelined(ctx, func(p redis.Pipeliner) error {
		get = p.Get(ctx, k)
		ttl = p.PTTL(ctx, k)
		return nil
	})
	if r.c.Fail("cache get", err) {
		return nil, 0, false
	}
	v, err := get.Bytes()
	if err != nil {
		return nil, 0, false
	}
	return v, ttl.Val(), true
}

// Set implements Backend.
func (r *Redis) Set(ctx context.Context, key string, val []byte, ttl time.Duration) {
	if ttl <= 0 {
		ttl = time.Hour
	}
	ctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return
	}
	defer cancel()
	r.c.Fail("cache set", r.c.R.Set(ctx, r.key(key), val, ttl).Err())
}

// Delete implements Backend.
func (r *Redis) Delete(ctx context.Context, keys ...string) {
	if len(keys) == 0 {
		return
	}
	ctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return
	}
	defer cancel()
	ks := make([]string, len(keys))
	for i, k := range keys {
		ks[i] = r.key(k)
	}
	r.c.Fail("cache delete", r.c.R.Del(ctx, ks...).Err())
}

// unlock deletes a lock only if it is still the holder's (its token).
var unlock = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

// setUnlock sets KEYS[1] to ARGV[1] for ARGV[2] ms and deletes the lock
// KEYS[2] if it is still the holder's (ARGV[3]): a computed value and its
// lock's release in one round trip.
var setUnlock = redis.NewScript(`redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 1`)

// lockOrGet returns {1, value, pttl} when KEYS[1] has a value; else it sets
// the lock KEYS[2] to ARGV[1] for ARGV[2] ms unless it is held, and returns
// {2} when it took it, {0} when another holds it.
var lockOrGet = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v then return {1, v, redis.call('PTTL', KEYS[1])} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return {2} end
return {0}`)

// LockOrGet reads key's value (and how long it has left to live) or takes
// its lock, in one script: the lock is SET NX PX under "lock:" with a random
// token, and its release sets the value computed and deletes the lock only
// if it is still ours, in one script too. Tiered makes it its Locker.
func (r *Redis) LockOrGet(ctx context.Context, key string, ttl time.Duration) (val []byte, valTTL time.Duration, found bool, release Release, err error) {
	dctx, cancel, up := r.c.Do(ctx)
	if !up {
		return nil, 0, false, nil, errDown
	}
	defer cancel()
	var b [12]byte
	rand.Read(b[:])
	token := base64.RawURLEncoding.EncodeToString(b[:])
	k := r.c.Key("lock", key)
	res, err := lockOrGet.Run(dctx, r.c.R, []string{r.key(key), k}, token, ttl.Milliseconds()).Slice()
	if r.c.Fail("cache lock", err) {
		return nil, 0, false, nil, err
	}
	if len(res) == 0 {
		return nil, 0, false, nil, errors.New("cache: lock script: empty reply")
	}
	switch res[0] {
	case int64(1):
		if len(res) != 3 {
			return nil, 0, false, nil, errors.New("cache: lock script: bad reply")
		}
		s, _ := res[1].(string)
		ms, _ := res[2].(int64)
		return []byte(s), time.Duration(ms) * time.Millisecond, true, nil, nil
	case int64(2):
		return nil, 0, false, func(val []byte, ttl time.Duration) {
			ctx, cancel, up := r.c.Do(ctx)
			if !up {
				return // the lock expires by itself
			}
			defer cancel()
			if val == nil {
				r.c.Fail("cache unlock", unlock.Run(ctx, r.c.R, []string{k}, token).Err())
				return
			}
			if ttl <= 0 {
				ttl = time.Hour
			}
			r.c.Fail("cache set", setUnlock.Run(ctx, r.c.R, []string{r.key(key), k}, val, ttl.Milliseconds(), token).Err())
		}, nil
	}
	return nil, 0, false, nil, nil
}
