package version

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/redisx"
)

// Redis keeps the current stamp of each (scope, id) in the shared Redis
// (cluster mode): every instance reads it on every Get, so a change made
// through any instance is seen on the next request, with no bus message.
// The stamps themselves live in the apps' tables: Raise and Bump set the
// Redis copy after the commit (a script that never lowers it), and a Get
// that finds no copy loads the stamp from the database and sets it unless a
// higher one got there first.
//
// With Redis unreachable (redisx's deadline, or paused after a failure) a
// Get reads the database, as Fresh does: slower, never stale. A Raise or
// Bump that could not reach Redis is retried in the background until it
// does, so the copy a recovered Redis still holds is raised too; every copy
// also expires after TTL, a bound on any change lost with this process.
type Redis struct {
	s   scopes[struct{}]
	c   *redisx.Client
	ttl time.Duration

	mu      sync.Mutex
	pending map[[2]string]Stamp // raises to retry; V -1: Bump (reload)
	trying  int                 // of those, taken by retries and not yet done
	done    chan struct{}
	closed  sync.Once
}

// TTL is how long Redis keeps a stamp after its last change.
const TTL = 10 * time.Minute

// retryEvery is how often raises that failed are tried again.
const retryEvery = 250 * time.Millisecond

// NewRedis makes the Redis service on c; Close stops its retries.
func NewRedis(c *redisx.Client) *Redis {
	r := &Redis{c: c, ttl: TTL, pending: map[[2]string]Stamp{}, done: make(chan struct{})}
	go r.retries()
	return r
}

// raiseScript sets KEYS[1] to "V:Until" unless it holds a higher V, renews
// its expiry, and returns what it holds then.
var raiseScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur then
  local v = tonumber(string.match(cur, '^(-?%d+):'))
  if v and v > tonumber(ARGV[1]) then
    redis.call('PEXPIRE', KEYS[1], ARGV[3])
    return cur
  end
end
local s = ARGV[1] .. ':' .. ARGV[2]
redis.call('SET', KEYS[1], s, 'PX', ARGV[3])
return s`)

// bumpScript adds one to KEYS[1]'s V if it is there; false if not.
var bumpScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if not cur then return false end
local v, u = string.match(cur, '^(-?%d+):(-?%d+)$')
if not v then return false end
local s = tostring(tonumber(v) + 1) .. ':' .. u
redis.call('SET', KEYS[1], s, 'PX', ARGV[1])
return s`)

func (r *Redis) key(scope, id string) string { return r.c.Key("v", scope, id) }

func parse(s string) (Stamp, bool) {
	v, u, ok := strings.Cut(s, ":")
	if !ok {
		return Stamp{}, false
	}
	var st Stamp
	var err1, err2 error
	st.V, err1 = strconv.ParseInt(v, 10, 64)
	st.Until, err2 = strconv.ParseInt(u, 10, 64)
	return st, err1 == nil && err2 == nil
}

// Register implements Versions.
func (r *Redis) Register(scope string, load Loader) { r.s.register(scope, load) }

// Get implements Versions: one Redis read; on a miss, one database read.
// Under a request's memo (WithMemo) the second Get of the request's first
// stamp reads nothing.
func (r *Redis) Get(ctx context.Context, scope, id string) (Stamp, error) {
	m := memoOf(ctx)
	if m != nil {
		if st, ok := m.take(scope, id); ok {
			return st, nil
		}
	}
	st, err := r.get(ctx, scope, id)
	if err == nil && m != nil {
		m.keep(scope, id, st)
	}
	return st, err
}

func (r *Redis) get(ctx context.Context, scope, id string) (Stamp, error) {
	sc := r.s.get(scope)
	if st, ok := r.cached(ctx, scope, id); ok {
		return st, nil
	}
	st, err := sc.load(ctx, id)
	if err != nil {
		return Stamp{}, err
	}
	if got, ok := r.raise(ctx, scope, id, st); ok {
		return got, nil
	}
	return st, nil
}

// cached is the stamp in Redis, if Redis has it and answers.
func (r *Redis) cached(ctx context.Context, scope, id string) (Stamp, bool) {
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return Stamp{}, false
	}
	defer cancel()
	s, err := r.c.R.Get(dctx, r.key(scope, id)).Result()
	if r.c.Fail("version get", err) || err != nil {
		return Stamp{}, false
	}
	return parse(s)
}

// raise sets the Redis copy to st unless it is higher, and returns what it
// holds then; ok is false if Redis did not answer.
func (r *Redis) raise(ctx context.Context, scope, id string, st Stamp) (Stamp, bool) {
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return Stamp{}, false
	}
	defer cancel()
	s, err := raiseScript.Run(dctx, r.c.R, []string{r.key(scope, id)}, st.V, st.Until, r.ttl.Milliseconds()).Text()
	if r.c.Fail("version raise", err) {
		return Stamp{}, false
	}
	return parse(s)
}

// Fresh implements Versions: the Redis copy is raised after every commit
// before the writer is answered, so it is as fresh as the database.
func (r *Redis) Fresh(ctx context.Context, scope, id string) (Stamp, error) {
	return r.get(ctx, scope, id)
}

// Raise implements Versions.
func (r *Redis) Raise(scope, id string, st Stamp) {
	r.s.get(scope)
	if _, ok := r.raise(context.Background(), scope, id, st); !ok {
		r.later(scope, id, st)
	}
}

// Bump implements Versions: one more on the Redis copy; without a copy, the
// database's stamp (read after the commit, so it holds the change).
func (r *Redis) Bump(scope, id string) {
	if !r.bump(scope, id) {
		r.later(scope, id, Stamp{V: -1})
	}
}

func (r *Redis) bump(scope, id string) bool {
	ctx := context.Background()
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return false
	}
	defer cancel()
	err := bumpScript.Run(dctx, r.c.R, []string{r.key(scope, id)}, r.ttl.Milliseconds()).Err()
	if err == redis.Nil { // no copy: the next Get loads it, but a Get under way may set an old one
		return r.reload(ctx, scope, id)
	}
	return !r.c.Fail("version bump", err)
}

// reload raises the Redis copy to the database's stamp; the copy of a
// thing that is gone (errs.ErrNotFound) is deleted. false: to be tried
// again (the database or Redis failed).
func (r *Redis) reload(ctx context.Context, scope, id string) bool {
	st, err := r.s.get(scope).load(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return r.del(ctx, scope, id)
	}
	if err != nil {
		return false
	}
	_, ok := r.raise(ctx, scope, id, st)
	return ok
}

// del deletes the Redis copy; false if Redis did not answer.
func (r *Redis) del(ctx context.Context, scope, id string) bool {
	dctx, cancel, ok := r.c.Do(ctx)
	if !ok {
		return false
	}
	defer cancel()
	return !r.c.Fail("version forget", r.c.R.Del(dctx, r.key(scope, id)).Err())
}

// Heard implements Versions: Redis already has every instance's changes.
func (r *Redis) Heard(string, string) {}

// Forget implements Versions. A copy Redis could not delete (it was down)
// is deleted once it answers: the retry reloads it, and the thing is gone.
func (r *Redis) Forget(scope, id string) {
	r.mu.Lock()
	delete(r.pending, [2]string{scope, id})
	r.mu.Unlock()
	if !r.del(context.Background(), scope, id) {
		r.later(scope, id, Stamp{V: -1})
	}
}

// later queues a change that did not reach Redis.
func (r *Redis) later(scope, id string, st Stamp) {
	k := [2]string{scope, id}
	r.mu.Lock()
	if old, ok := r.pending[k]; !ok || st.V < 0 || (old.V >= 0 && st.V > old.V) {
		r.pending[k] = st
	}
	r.mu.Unlock()
}

// retries tries the queued changes again until they reach Redis.
func (r *Redis) retries() {
	t := time.NewTicker(retryEvery)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
		}
		if r.c.Paused() {
			continue
		}
		r.mu.Lock()
		if len(r.pending) == 0 { // nothing failed: no new map every tick
			r.mu.Unlock()
			continue
		}
		todo := r.pending
		r.pending = map[[2]string]Stamp{}
		r.trying = len(todo)
		r.mu.Unlock()
		for k, st := range todo {
			ok := false
			if st.V < 0 {
				ok = r.reload(context.Background(), k[0], k[1])
			} else {
				_, ok = r.raise(context.Background(), k[0], k[1], st)
			}
			if !ok {
				r.later(k[0], k[1], st)
			}
			r.mu.Lock()
			r.trying--
			r.mu.Unlock()
		}
	}
}

// Pending is the count of changes waiting to reach Redis, the ones being
// tried again included.
func (r *Redis) Pending() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.pending) + r.trying
}

// Close stops the retries.
func (r *Redis) Close() { r.closed.Do(func() { close(r.done) }) }
