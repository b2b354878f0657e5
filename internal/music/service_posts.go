package music

import (
	"context"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
)

// Share posts u's draft (a link with a comment and hashtags, public or for
// friends) and returns the new post's id.
func (s *Service) Share(ctx context.Context, u *auth.User, d Draft) (int64, error) {
	if u == nil {
		return 0, errSignIn
	}
	if _, err := d.Clean(); err != nil {
		return 0, err
	}
	if err := paced(ctx, s.limits.Posts, u, "posting"); err != nil {
		return 0, err
	}
	var id int64
	err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		id, err = s.store.insert(ctx, tx, newPost{Author: u.ID, URL: d.URL, Comment: d.Comment, Visibility: d.Visibility,
			At: s.store.now().UnixMilli()})
		return err
	})
	if err != nil {
		return 0, err
	}
	if d.Visibility == Public {
		s.tagsChanged(d.Comment)
	}
	return id, nil
}

// Comment adds u's comment to post id and returns it as stored (its
// PostID the original's, for a repost).
func (s *Service) Comment(ctx context.Context, u *auth.User, id int64, body string) (*Comment, error) {
	return s.CommentAt(ctx, u, id, body, -1)
}

// CommentAt is Comment pinned to the moment atMS (in ms from the start) of
// an audio post, within its duration (an errs.Fields error on "at"
// otherwise); atMS < 0: not pinned.
func (s *Service) CommentAt(ctx context.Context, u *auth.User, id int64, body string, atMS int64) (*Comment, error) {
	if u == nil {
		return nil, errSignIn
	}
	body, err := CleanComment(body)
	if err != nil {
		return nil, err
	}
	if err := paced(ctx, s.limits.Comments, u, "commenting"); err != nil {
		return nil, err
	}
	var c Comment
	var sent social.Sent
	if err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		sent = sent[:0] // a batch that failed runs its writes again
		c, err = s.store.comment(ctx, tx, id, u.ID, body, atMS, &sent)
		return err
	}); err != nil {
		return nil, err
	}
	s.notify(ctx, sent)
	c.Author = personOf(u)
	return &c, nil
}

// Like sets whether u likes post id (its original) and returns the like
// count.
func (s *Service) Like(ctx context.Context, u *auth.User, id int64, on bool) (int64, error) {
	if u == nil {
		return 0, errSignIn
	}
	if on {
		if err := paced(ctx, s.limits.Likes, u, "liking"); err != nil {
			return 0, err
		}
	}
	var n int64
	var sent social.Sent
	if err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		sent = sent[:0]
		_, n, err = s.store.like(ctx, tx, id, u.ID, on, &sent)
		return err
	}); err != nil {
		return 0, err
	}
	s.notify(ctx, sent)
	return n, nil
}

// Repost shares public post id with u's friends (once).
func (s *Service) Repost(ctx context.Context, u *auth.User, id int64) error {
	if u == nil {
		return errSignIn
	}
	var sent social.Sent
	if err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		sent = sent[:0]
		_, err = s.store.repost(ctx, tx, id, u.ID, &sent)
		return err
	}); err != nil {
		return err
	}
	s.notify(ctx, sent)
	return nil
}

// Delete removes post id: its author, or a moderator (canModerate).
func (s *Service) Delete(ctx context.Context, u *auth.User, id int64) error {
	if u == nil {
		return errSignIn
	}
	var r postRow
	err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		if r, err = s.store.row(ctx, tx, id); err != nil {
			return err
		}
		if !canModerate(u) { // a post u may not see is not found, not "not yours"
			if ok, err := s.store.sees(ctx, tx, u.ID, r); err != nil || !ok {
				return orErr(err, errs.ErrNotFound)
			}
		}
		return s.store.remove(ctx, tx, id, u.ID, canModerate(u))
	})
	if err == nil {
		s.tagsChanged(r.Comment)
		if r.Kind == KindAudio {
			s.forgetAudio(ctx, id)
		}
	}
	return err
}

// CommentsOff turns comments off (or on again) on u's own post id.
func (s *Service) CommentsOff(ctx context.Context, u *auth.User, id int64, off bool) error {
	if u == nil {
		return errSignIn
	}
	return s.write(ctx, func(ctx context.Context, tx *db.Tx) error {
		return s.store.commentsOff(ctx, tx, id, u.ID, off)
	})
}

// Report files u's report of post id with reason, for the moderators.
func (s *Service) Report(ctx context.Context, u *auth.User, id int64, reason string) error {
	if u == nil {
		return errSignIn
	}
	reason, err := s.store.reports.Clean(reason)
	if err != nil {
		return err
	}
	return s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error {
		return s.store.report(ctx, tx, id, u.ID, reason)
	})
}

// ReportedPost is a reported post with its reports, for the moderators.
type ReportedPost struct {
	social.Report
	Post *Post // nil if it is gone
}

// Reports returns the reported posts, most reported first: moderators only.
func (s *Service) Reports(ctx context.Context, u *auth.User) ([]ReportedPost, error) {
	if !canModerate(u) {
		return nil, errModerators
	}
	open, err := s.store.reports.Open(ctx, s.store.db, 50)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(open))
	for i, r := range open {
		ids[i] = r.Subject
	}
	posts, err := s.store.PostsAny(ctx, u.ID, ids)
	if err != nil {
		return nil, err
	}
	out := make([]ReportedPost, len(open))
	for i, r := range open {
		out[i] = ReportedPost{Report: r, Post: posts[r.Subject]}
	}
	return out, nil
}

// Dismiss closes post id's reports without removing it: moderators only.
func (s *Service) Dismiss(ctx context.Context, u *auth.User, id int64) error {
	if !canModerate(u) {
		return errModerators
	}
	return s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.reports.Dismiss(ctx, tx, id) })
}

// MarkSeen marks u's notifications up to the id upTo as seen.
func (s *Service) MarkSeen(ctx context.Context, u *auth.User, upTo int64) error {
	if u == nil {
		return errSignIn
	}
	return s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.notes.MarkSeen(ctx, tx, u.ID, upTo) })
}

// now is the service's clock.
func (s *Service) now() time.Time { return s.store.now() }
