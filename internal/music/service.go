package music

import (
	"context"
	"log/slog"
	"strings"
	"sync"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/tags"
	"github.com/tutti-dev/tutti/internal/version"
)

// Service is music's middle layer, between the handlers and the Store: it
// decides who may do what (signed in, the author, a moderator: canModerate),
// checks what was typed (Draft.Clean, CleanComment, a report's reason),
// writes through the core's group commit, raises the version that keys
// visitors' cached pages, and tells the live streams of new unread
// notifications once the write is committed. Rules that rows written at
// the same moment could break (who may see a post, blocks, comments off)
// are checked by the Store inside the write's transaction. It knows
// nothing of HTTP.
type Service struct {
	store    *Store
	writes   *db.Batcher
	versions version.Versions
	log      *slog.Logger
	media    *media.Service // audio posts' files (nil: audio cannot be uploaded)
	gone     sync.Map       // a deleted account's audio posts (user id: []int64), between ForgetAccount and AccountForgotten
	board    *tags.Board    // the trending hashtags (nil: none)
	people   *auth.Service  // people search (FindPeople)
	limits   Limits         // the pace of posts, comments, likes, friend requests (UseLimits)
	// unread is told of each user a write notified, with their unread
	// count, after the commit (App: the live streams); nil: nobody.
	unread func(ctx context.Context, user, count int64)
}

// versionScope is music's scope in the versions service (one stamp, id "").
const versionScope = "music"

// NewService builds music's service over store; writes go through writes.
func NewService(store *Store, writes *db.Batcher, versions version.Versions, log *slog.Logger) *Service {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Service{store: store, writes: writes, versions: versions, log: log}
	versions.Register(versionScope, func(ctx context.Context, _ string) (version.Stamp, error) {
		v, err := store.Version(ctx)
		return version.Stamp{V: v}, err
	})
	return s
}

// UseMedia keeps audio posts' files in m and registers their kind
// (AudioKind) there: at start-up.
func (s *Service) UseMedia(m *media.Service) {
	s.media = m
	if m != nil {
		m.Register(s.audioKind())
	}
}

// The refusals the Service and the Store decide.
var (
	errSignIn        = errs.E(errs.Unauthorized, "Please sign in first.")
	errNotYours      = errs.E(errs.Forbidden, "Only its author can do that to this post.")
	errModerators    = errs.E(errs.Forbidden, "Only moderators can do that.")
	errCommentsOff   = errs.E(errs.Forbidden, "Comments are turned off on this post.")
	errRepostPrivate = errs.E(errs.Forbidden, "Only a public post can be reposted: its author chose who sees it.")
	errRepostOwn     = errs.E(errs.Invalid, "Your friends see your own posts already.")
)

// canModerate is the one place that says whether u may remove anyone's
// post and read the reports: music's moderator role (module.Module.Roles).
func canModerate(u *auth.User) bool { return u.Has("music", RoleModerator) }

// write runs fn in a group-committed transaction that raises music_meta's
// version once (every write of a batch shares it), then raises the stamps
// to it: visitors' cached pages are out of date.
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

// writeOwn runs fn in a group-committed transaction that changes nothing a
// visitor's page shows (friendships, notifications seen, reports).
func (s *Service) writeOwn(ctx context.Context, fn func(ctx context.Context, tx *db.Tx) error) error {
	return s.writes.Do(ctx, fn)
}

// notify tells the live streams each user's unread count after a commit.
func (s *Service) notify(ctx context.Context, sent social.Sent) {
	if s.unread == nil || len(sent) == 0 {
		return
	}
	err := s.store.notes.Push(ctx, s.store.db, sent, func(user, unread int64) { s.unread(ctx, user, unread) })
	if err != nil {
		s.log.Warn("music: unread counts", "users", len(sent), "err", err)
	}
}

// Trending is the hashtags trending now among public posts (no query).
func (s *Service) Trending() []tags.Trend {
	if s.board == nil {
		return nil
	}
	return s.board.Top()
}

func (s *Service) tagsChanged(comment string) {
	if s.board != nil && strings.ContainsRune(comment, '#') {
		s.board.Kick()
	}
}

// VisitorVersion is the version of visitors' cached pages.
func (s *Service) VisitorVersion(ctx context.Context) (int64, error) {
	st, err := s.versions.Get(ctx, versionScope, "")
	return st.V, err
}

// ForgetAccount runs in the account deletion's transaction; the files of
// the user's audio posts are deleted once it committed (AccountForgotten).
func (s *Service) ForgetAccount(ctx context.Context, tx *db.Tx, userID int64) error {
	if s.media != nil {
		ids, err := s.store.audioIDs(ctx, tx, userID)
		if err != nil {
			return err
		}
		s.gone.Store(userID, ids)
	}
	return s.store.forgetUser(ctx, tx, userID)
}

// AccountForgotten is told after the account deletion of userID committed.
func (s *Service) AccountForgotten(ctx context.Context, userID int64) {
	s.versions.Bump(versionScope, "")
	if ids, ok := s.gone.LoadAndDelete(userID); ok {
		for _, id := range ids.([]int64) {
			s.forgetAudio(ctx, id)
		}
	}
}

var errUnknownVerb = errs.E(errs.NotFound, "Not found.")
