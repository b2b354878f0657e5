package music

import (
	"context"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/ratelimit"
)

// Limits pace what a user writes that others receive: each action has a
// bucket of its own per user (internal/ratelimit: burst at once, then one
// more per Every), so that liking a page of songs does not stop a comment.
// A nil limiter does not limit.
type Limits struct {
	Posts    ratelimit.Limiter // song links and audio uploads
	Comments ratelimit.Limiter
	Likes    ratelimit.Limiter // a like given (taking one back is free)
	Friends  ratelimit.Limiter // friend requests sent
}

// The bursts of each action's bucket; WritesPerMinute refills them.
const (
	postBurst    = 10
	commentBurst = 20
	likeBurst    = 30
	friendBurst  = 10
)

// NewLimits makes music's limits from maker (the core's Maker), refilling
// perMinute a minute; perMinute <= 0: none.
func NewLimits(maker ratelimit.Maker, perMinute int) Limits {
	if maker == nil || perMinute <= 0 {
		return Limits{}
	}
	every := time.Minute / time.Duration(perMinute)
	return Limits{
		Posts:    maker("music-post", every, postBurst),
		Comments: maker("music-comment", every, commentBurst),
		Likes:    maker("music-like", every, likeBurst),
		Friends:  maker("music-friend", every, friendBurst),
	}
}

// UseLimits paces writes by l (at start-up).
func (s *Service) UseLimits(l Limits) { s.limits = l }

// paced refuses u's action past lim (429 with the wait, and what for);
// nothing is written then.
func paced(ctx context.Context, lim ratelimit.Limiter, u *auth.User, what string) error {
	if lim == nil || u == nil {
		return nil
	}
	if ok, wait := lim.Allow(ctx, strconv.FormatInt(u.ID, 10)); !ok {
		return errs.Slow(wait, "You are %s too fast; please wait %d seconds.", what, int(wait.Seconds())+1)
	}
	return nil
}
