package roar

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/tags"
	"github.com/tutti-dev/tutti/internal/version"
)

// Service is roar's middle layer, between the handlers and the Store, shared
// by the pages and the JSON API. It owns every decision: who may do what
// (signed in, the author or a moderator), validation of what was typed
// (CleanBody, a report's reason), the posting rate limit, the write itself
// through the core's group commit, the version that keys the caches, and
// telling the live streams once the write is committed. It reads timelines,
// threads, profiles and notifications with the viewer's marks (Viewer).
//
// Rules that rows written at the same moment could break (blocks either
// way, one repost per user, replying to or liking an original and not a
// repost, a parent that still exists) are checked by the Store inside the
// write's transaction, which answers with the Service's errors
// (errBlocked, ...): a check made before the transaction could be stale by
// the commit.
//
// Errors are errs-kinded, with messages safe to show: Unauthorized without a
// user, Forbidden for what the user may not do, Invalid (with field
// messages) for bad input, TooMany (with the wait) past the rate
// limit, NotFound for a roar or user that does not exist.
//
// The Service knows nothing of HTTP: handlers parse the request, call it and
// answer (page, redirect or JSON).
type Service struct {
	store    *Store
	writes   *db.Batcher
	versions version.Versions
	cache    *cache.Cache                   // the shared cache: the newest roars, encoded
	decoded  *cache.Decoded[string, []Roar] // what was read from cache, decoded, at its version
	limit    Limiter
	log      *slog.Logger
	// publish is told of every change after its commit (App.announce: the
	// live streams of every instance).
	publish func(context.Context, *Event)
	// board keeps the trending hashtags (App sets it; nil: none), told of
	// every roar with one.
	board *tags.Board
}

// Limiter answers whether key may act now, and if not, when.
type Limiter interface {
	Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration)
}

// NewService builds roar's service over store and registers roar's scope in
// versions (its stamp is roar_meta.version). Writes go through writes (the
// core's group commit, shared with every app); the newest roars are cached
// in c; limit paces posting (nil: unlimited); publish is told of each
// committed change (nil: nobody); log (nil: discarded) gets what fails
// after a commit.
func NewService(store *Store, writes *db.Batcher, versions version.Versions, c *cache.Cache, limit Limiter,
	log *slog.Logger, publish func(context.Context, *Event)) *Service {
	if publish == nil {
		publish = func(context.Context, *Event) {}
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: store, writes: writes, versions: versions, cache: c, decoded: newDecoded(nil), limit: limit, log: log, publish: publish}
	versions.Register(versionScope, func(ctx context.Context, _ string) (version.Stamp, error) {
		v, err := store.Version(ctx)
		return version.Stamp{V: v}, err
	})
	return s
}

// The refusals the Service decides.
var (
	errSignIn     = errs.E(errs.Unauthorized, "Please sign in first.")
	errModerators = errs.E(errs.Forbidden, "Only moderators can do that.")
	errNotYours   = errs.E(errs.Forbidden, "Only its author or a moderator can delete this roar.")
	// errBlocked is checked by the Store inside the write's transaction
	// (the core's rule for users who block one another).
	errBlocked = social.ErrBlocked
)

// paced refuses u's roar, reply or repost past the rate limit (429 with the
// wait).
func (s *Service) paced(ctx context.Context, u *auth.User) error {
	if s.limit == nil {
		return nil
	}
	if ok, wait := s.limit.Allow(ctx, itoa(u.ID)); !ok {
		return errs.Slow(wait, "You are roaring too fast; please wait %d seconds.", int(wait.Seconds())+1)
	}
	return nil
}

// write runs fn in a group-committed transaction that raises roar_meta's
// version once (bump; fn may have done it first, to take the row's lock
// early), then raises the stamps to that version: every write of a batch
// shares it, and the stamps stay equal to the database's whatever the
// batch's size.
func (s *Service) write(ctx context.Context, fn func(ctx context.Context, tx *db.Tx) error) error {
	var v int64
	err := s.writes.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
		if err := fn(ctx, tx); err != nil {
			return err
		}
		var err error
		v, err = bump(ctx, tx)
		return err
	})
	if err != nil {
		return err
	}
	s.versions.Raise(versionScope, "", version.Stamp{V: v})
	return nil
}

// writeOwn runs fn in a group-committed transaction that changes nothing
// a cached page shows (notifications seen, reports): roar_meta's row, which
// every public write locks, and the caches' stamp stay as they are.
func (s *Service) writeOwn(ctx context.Context, fn func(ctx context.Context, tx *db.Tx) error) error {
	return s.writes.Do(ctx, fn)
}

// Trending is the hashtags trending now, as the board last read them (no
// query; none without a board).
func (s *Service) Trending() []tags.Trend {
	if s.board == nil {
		return nil
	}
	return s.board.Top()
}

// tagsChanged tells the board that a roar with body, written or removed,
// may change what is trending.
func (s *Service) tagsChanged(body string) {
	if s.board != nil && strings.ContainsRune(body, '#') {
		s.board.Kick()
	}
}

// WriteStats reports the group commit: transactions and the writes in them.
func (s *Service) WriteStats() (batches, writes int64) { return s.writes.Stats() }

// versionScope is roar's scope in the versions service: one stamp (id "")
// for all of roar.
const versionScope = "roar"

// changed records a committed change made here.
func (s *Service) changed() { s.versions.Bump(versionScope, "") }

// currentVersion is the version that keys the caches, as committed: signed-in
// users see their own writes even when made through another instance.
func (s *Service) currentVersion(ctx context.Context) (int64, error) {
	st, err := s.versions.Fresh(ctx, versionScope, "")
	return st.V, err
}

// ForgetAccount runs in the account deletion's transaction: the counts of
// what the user liked, replied to or reposted go down before their rows
// cascade away.
func (s *Service) ForgetAccount(ctx context.Context, tx *db.Tx, userID int64) error {
	return s.store.forgetUser(ctx, tx, userID)
}

// AccountForgotten is told after the account deletion committed: cached
// timelines that showed the user are out of date.
func (s *Service) AccountForgotten() { s.changed() }
