package music

import (
	"maps"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/ratelimit"
)

// TestRateLimits: past its bucket, a post, a comment, a like or a friend
// request is refused with the wait (TooMany, RetryAfter) and writes
// nothing; taking a like back, and another user's action, are not
// limited.
func TestRateLimits(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		one := func() ratelimit.Limiter { return ratelimit.NewLocal(time.Hour, 1) }
		w.s.UseLimits(Limits{Posts: one(), Comments: one(), Likes: one(), Friends: one()})
		song := w.share(w.ann, "https://example.com/song", "a song", Public)
		_, err := w.s.Comment(w.ctx, w.bob, song, "first")
		w.must(err)
		_, err = w.s.Like(w.ctx, w.bob, song, true)
		w.must(err)
		w.must(w.s.Relate(w.ctx, w.cat, "ann", "befriend"))
		before := w.counts()

		tooMany := func(what string, err error) {
			t.Helper()
			if e := errs.As(err); e.Kind != errs.TooMany || e.RetryAfter <= 0 || e.Message == "" {
				t.Errorf("%s past the limit: %v (kind %d, retry after %v); want TooMany with a wait", what, err, e.Kind, e.RetryAfter)
			}
			if after := w.counts(); !maps.Equal(before, after) {
				t.Errorf("%s past the limit wrote:\n before %v\n after  %v", what, before, after)
			}
		}
		_, err = w.s.Share(w.ctx, w.ann, Draft{URL: "https://example.com/two"})
		tooMany("a second post", err)
		_, err = w.s.CommentAt(w.ctx, w.bob, song, "second", -1)
		tooMany("a second comment", err)
		tooMany("a second friend request", w.s.Relate(w.ctx, w.cat, "bob", "befriend"))
		if _, err := w.s.Like(w.ctx, w.bob, song, false); err != nil {
			t.Errorf("taking a like back: %v; want no limit", err)
		}
		before = w.counts()
		_, err = w.s.Like(w.ctx, w.bob, song, true)
		tooMany("a second like", err)

		// Each user has buckets of their own.
		if _, err := w.s.Share(w.ctx, w.bob, Draft{URL: "https://example.com/bob"}); err != nil {
			t.Errorf("bob's first post: %v", err)
		}
		if _, err := w.s.Comment(w.ctx, w.ann, song, "mine"); err != nil {
			t.Errorf("ann's first comment: %v", err)
		}
	})
}

// counts is what the limited writes change: rows of each table.
func (w *world) counts() map[string]int64 {
	w.t.Helper()
	out := map[string]int64{}
	for _, table := range []string{"music_posts", "music_comments", "music_likes", "music_friend_requests", "music_notifications"} {
		var n int64
		w.must(db.Scan(w.d.QueryRow(w.ctx, "SELECT count(*) FROM "+table), &n))
		out[table] = n
	}
	return out
}
