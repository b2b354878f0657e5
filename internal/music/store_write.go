package music

import (
	"context"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/tags"
)

// bump raises music_meta's version once per transaction and returns it.
func bump(ctx context.Context, tx *db.Tx) (int64, error) {
	return tx.Once("music_meta", func() (int64, error) {
		var v int64
		err := db.Scan(tx.QueryRow(ctx, "UPDATE music_meta SET version = version + 1 WHERE id = 1 RETURNING version"), &v)
		return v, err
	})
}

// newPost is a post to insert, already checked.
type newPost struct {
	Author     int64
	URL        string
	Comment    string
	Visibility string
	RepostOf   int64
	At         int64
	// An audio post (Audio true) starts not ready, with the peaks and
	// duration the browser measured (kept if the server cannot decode).
	Audio      bool
	Peaks      []byte
	DurationMS int64
}

// insert writes p and returns its id: the post, its hashtags in the tag
// index, and, for a public post, its hashtags' use for trending (a
// friends-only post's tags never count there: the counts are public).
func (s *Store) insert(ctx context.Context, tx *db.Tx, p newPost) (int64, error) {
	if _, err := bump(ctx, tx); err != nil {
		return 0, err
	}
	var repost any
	if p.RepostOf != 0 {
		repost = p.RepostOf
	}
	kind, media, ready, peaks := KindLink, any(nil), 1, any(nil)
	if p.Audio { // media_id is set once the file is saved (setMedia)
		kind, media, ready = KindAudio, 0, 0
		if len(p.Peaks) > 0 {
			peaks = p.Peaks
		}
	}
	var id int64
	err := db.Scan(tx.QueryRow(ctx, `INSERT INTO music_posts (author_id, kind, url, comment, visibility, repost_of, media_id,
			ready, peaks, duration_ms, created_at, changed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, p.Author, kind, p.URL, p.Comment, p.Visibility, repost, media,
		ready, peaks, p.DurationMS, p.At, p.At), &id)
	if err != nil {
		return 0, fmt.Errorf("music: post: %w", err)
	}
	keys := tags.Tags(p.Comment)
	if err := s.tags.Add(ctx, tx, id, keys); err != nil {
		return 0, err
	}
	if p.Visibility == Public {
		if err := s.trend.Record(ctx, tx, keys, time.UnixMilli(p.At)); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// postRow is what a write needs to know of a post.
type postRow struct {
	Author      int64
	Visibility  string
	RepostOf    int64
	CommentsOff bool
	Comment     string
	CreatedAt   int64
	Kind        string
	Ready       bool
	DurationMS  int64
	MediaID     int64
}

func (s *Store) row(ctx context.Context, q db.Querier, id int64) (postRow, error) {
	var r postRow
	err := db.Scan(q.QueryRow(ctx, `SELECT author_id, visibility, COALESCE(repost_of, 0), comments_off, comment, created_at,
			kind, ready, duration_ms, COALESCE(media_id, 0)
		FROM music_posts WHERE id = ?`, id), &r.Author, &r.Visibility, &r.RepostOf, &r.CommentsOff, &r.Comment, &r.CreatedAt,
		&r.Kind, &r.Ready, &r.DurationMS, &r.MediaID)
	return r, err
}

// sees reports, in tx, whether viewer may see post r (public, theirs, or a
// friend's) and is not blocked either way by its author.
func (s *Store) sees(ctx context.Context, tx *db.Tx, viewer int64, r postRow) (bool, error) {
	if r.Author == viewer {
		return true, nil
	}
	if !r.Ready { // an audio being processed: its author's only
		return false, nil
	}
	if blocked, err := s.graph.BlockedBetween(ctx, tx, viewer, r.Author); err != nil || blocked {
		return false, err
	}
	if r.Visibility == Public {
		return true, nil
	}
	st, err := s.graph.FriendState(ctx, tx, viewer, r.Author)
	return st == social.Friends, err
}

// target is the post a like, comment or repost of id is about (the
// original of a repost), if user may see it; else ErrNotFound.
func (s *Store) target(ctx context.Context, tx *db.Tx, id, user int64) (int64, postRow, error) {
	r, err := s.row(ctx, tx, id)
	if err != nil {
		return 0, r, err
	}
	if r.RepostOf != 0 {
		id = r.RepostOf
		if r, err = s.row(ctx, tx, id); err != nil {
			return 0, r, err
		}
	}
	ok, err := s.sees(ctx, tx, user, r)
	if err == nil && !ok {
		err = errs.ErrNotFound
	}
	return id, r, err
}

// comment adds user's comment to post id (its original, for a repost) and
// notifies the author; comments turned off, or a post user may not see,
// are refused.
func (s *Store) comment(ctx context.Context, tx *db.Tx, id, user int64, body string, atMS int64, sent *social.Sent) (Comment, error) {
	id, r, err := s.target(ctx, tx, id, user)
	if err != nil {
		return Comment{}, err
	}
	if r.CommentsOff && r.Author != user {
		return Comment{}, errCommentsOff
	}
	var at any
	if atMS >= 0 {
		switch {
		case r.Kind != KindAudio:
			return Comment{}, errs.Fields(map[string]string{"at": "Only an audio has moments to comment on."})
		case atMS > r.DurationMS:
			return Comment{}, errs.Fields(map[string]string{"at": "Choose a moment within the audio: from 0:00 to " + clock(r.DurationMS) + "."})
		}
		at = atMS
	}
	now := s.now().UnixMilli()
	c := Comment{PostID: id, Author: social.Person{ID: user}, Body: body, CreatedAt: time.UnixMilli(now).UTC(), AtMS: -1}
	if atMS >= 0 {
		c.AtMS = atMS
	}
	if err := db.Scan(tx.QueryRow(ctx, "INSERT INTO music_comments (post_id, author_id, body, at_ms, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id",
		id, user, body, at, now), &c.ID); err != nil {
		return Comment{}, fmt.Errorf("music: comment: %w", err)
	}
	if _, err := tx.Exec(ctx, "UPDATE music_posts SET comments = comments + 1, changed_at = ? WHERE id = ?", now, id); err != nil {
		return Comment{}, err
	}
	if err := s.notes.Add(ctx, tx, sent, now, r.Author, "comment", user, id); err != nil {
		return Comment{}, err
	}
	if r.Visibility == Public {
		_, err = bump(ctx, tx)
	}
	return c, err
}

// like sets whether user likes post id (its original) and returns the
// post's id and like count.
func (s *Store) like(ctx context.Context, tx *db.Tx, id, user int64, on bool, sent *social.Sent) (int64, int64, error) {
	id, r, err := s.target(ctx, tx, id, user)
	if err != nil {
		return 0, 0, err
	}
	changed, err := s.likes.Set(ctx, tx, id, user, on)
	if err != nil {
		return 0, 0, err
	}
	if changed {
		if on {
			if err := s.notes.Add(ctx, tx, sent, s.now().UnixMilli(), r.Author, "like", user, id); err != nil {
				return 0, 0, err
			}
		}
		if r.Visibility == Public {
			if _, err := bump(ctx, tx); err != nil {
				return 0, 0, err
			}
		}
	}
	n, err := s.likes.Count(ctx, tx, id)
	return id, n, err
}

// repost shares the public post id (its original) with user's friends:
// a post of user's, friends-only, pointing at it (once; again changes
// nothing). A friends-only post is not reposted: its author chose who sees it.
func (s *Store) repost(ctx context.Context, tx *db.Tx, id, user int64, sent *social.Sent) (int64, error) {
	id, r, err := s.target(ctx, tx, id, user)
	if err != nil {
		return 0, err
	}
	switch {
	case r.Visibility != Public:
		return 0, errRepostPrivate
	case r.Author == user:
		return 0, errRepostOwn
	}
	var n int64
	if err := db.Scan(tx.QueryRow(ctx, "SELECT count(*) FROM music_posts WHERE repost_of = ? AND author_id = ?", id, user), &n); err != nil || n > 0 {
		return id, err
	}
	now := s.now().UnixMilli()
	if _, err := s.insert(ctx, tx, newPost{Author: user, Visibility: Friends, RepostOf: id, At: now}); err != nil {
		return 0, err
	}
	if _, err := tx.Exec(ctx, "UPDATE music_posts SET reposts = reposts + 1, changed_at = ? WHERE id = ?", now, id); err != nil {
		return 0, err
	}
	return id, s.notes.Add(ctx, tx, sent, now, r.Author, "repost", user, id)
}

// remove deletes post id (its comments, likes, tags and reposts go with
// it), by its author, or by a moderator (moderator true: the Service
// decided).
func (s *Store) remove(ctx context.Context, tx *db.Tx, id, by int64, moderator bool) error {
	r, err := s.row(ctx, tx, id)
	if err != nil {
		return err
	}
	if r.Author != by && !moderator {
		return errNotYours
	}
	if _, err := bump(ctx, tx); err != nil {
		return err
	}
	if r.RepostOf != 0 {
		if _, err := tx.Exec(ctx, "UPDATE music_posts SET reposts = reposts - 1, changed_at = ? WHERE id = ? AND reposts > 0",
			s.now().UnixMilli(), r.RepostOf); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, "DELETE FROM music_posts WHERE id = ?", id); err != nil {
		return fmt.Errorf("music: delete: %w", err)
	}
	if r.Visibility == Public {
		return s.trend.Forget(ctx, tx, tags.Tags(r.Comment), time.UnixMilli(r.CreatedAt))
	}
	return nil
}

// commentsOff sets whether post id takes comments: its author only.
func (s *Store) commentsOff(ctx context.Context, tx *db.Tx, id, by int64, off bool) error {
	r, err := s.row(ctx, tx, id)
	if err != nil {
		return err
	}
	if r.Author != by {
		return errNotYours
	}
	flag := 0
	if off {
		flag = 1
	}
	if _, err := tx.Exec(ctx, "UPDATE music_posts SET comments_off = ?, changed_at = ? WHERE id = ?", flag, s.now().UnixMilli(), id); err != nil {
		return err
	}
	_, err = bump(ctx, tx)
	return err
}

// report files user's report of post id, which user must see.
func (s *Store) report(ctx context.Context, tx *db.Tx, id, user int64, reason string) error {
	r, err := s.row(ctx, tx, id)
	if err != nil {
		return err
	}
	if ok, err := s.sees(ctx, tx, user, r); err != nil || !ok {
		return orErr(err, errs.ErrNotFound)
	}
	_, err = s.reports.File(ctx, tx, id, user, reason)
	return err
}

// forgetUser runs inside the account deletion: the counts of what the
// user liked, commented on and reposted go down before their rows cascade.
func (s *Store) forgetUser(ctx context.Context, tx *db.Tx, user int64) error {
	if err := s.likes.ForgetUser(ctx, tx, user); err != nil {
		return err
	}
	now := s.now().UnixMilli()
	if _, err := tx.Exec(ctx, `UPDATE music_posts SET changed_at = ?,
			comments = (SELECT count(*) FROM music_comments c WHERE c.post_id = music_posts.id AND c.author_id <> ?)
		WHERE id IN (SELECT post_id FROM music_comments WHERE author_id = ?)`, now, user, user); err != nil {
		return fmt.Errorf("music: forget user: %w", err)
	}
	if _, err := tx.Exec(ctx, `UPDATE music_posts SET reposts = reposts - 1, changed_at = ?
		WHERE id IN (SELECT repost_of FROM music_posts WHERE author_id = ? AND repost_of IS NOT NULL) AND reposts > 0`, now, user); err != nil {
		return fmt.Errorf("music: forget user: %w", err)
	}
	_, err := bump(ctx, tx)
	return err
}

func orErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}
