package cache

import (
	"context"
	"crypto/rand"
	"encoding/base64"
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

// Lock implements Locker with SET NX PX under "lock:" and a random token;
// the release deletes the lock only if it is still ours. An error means
// Redis cannot be asked (compute without the lock).
func (r *Redis) Lock(ctx context.Context, key string, ttl time.Duration) (release func(), ok bool, err error) {
	dctx, cancel, up := r.c.Do(ctx)
	if !up {
		return nil, false, errDown
	}
	defer cancel()
	var b [12]byte
	rand.Read(b[:])
	token := base64.RawURLEncoding.EncodeToString(b[:])
	k := r.c.Key("lock", key)
	ok, err = r.c.R.SetNX(dctx, k, token, ttl).Result()
	if r.c.Fail("cache lock", err) {
		return nil, false, err
	}
	if !ok {
		return nil, false, nil
	}
	return func() {
		ctx, cancel, up := r.c.Do(ctx)
		if !up {
			return // the lock expires by itself
		}
		defer cancel()
		r.c.Fail("cache unlock", unlock.Run(ctx, r.c.R, []string{k}, token).Err())
	}, true, nil
}
