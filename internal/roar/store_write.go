package roar

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/tags"
)

// The writes below run inside a transaction of the app's Batcher, many to a
// transaction: they must not fail on what is merely already done (liking
// twice, following twice) and must have no effects outside tx. Each raises
// roar_meta.version, which keys the caches, once per transaction (bump; the
// Service's write makes sure of it for every write). The rules that rows written at
// the same moment could break (blocks, one repost each, the author of what is
// deleted) are checked here, inside the transaction, with the Service's
// errors (service.go): the Service decides the rest before writing.

// Post is a new roar to write.
type Post struct {
	Author   int64
	Body     string // already cleaned; empty for a repost
	ReplyTo  int64
	RepostOf int64
	At       int64 // when it was posted, unix ms; 0: when it is written
}

// bump raises roar_meta's version, once per transaction (db.Tx.Once): the
// writes of a batch are one change for the caches, and the first one has
// taken the row's lock for the rest. It returns the version set, for the
// Service to raise the stamps to.
func bump(ctx context.Context, tx *db.Tx) (int64, error) {
	return tx.Once(metaKey, func() (int64, error) {
		var v int64
		err := db.Scan(tx.QueryRow(ctx, "UPDATE roar_meta SET version = version + 1 WHERE id = 1 RETURNING version"), &v)
		return v, err
	})
}

// metaKey is bump's key in a transaction.
const metaKey = "roar_meta"

// insert writes p and returns its id: the roar, its hashtags, the parent's
// reply count, and notifications for the replied-to and mentioned users.
//
// It raises the version first: that takes roar_meta's row lock before the id
// is drawn, so that roars are numbered in the order they commit even when
// several instances write to one PostgreSQL. Readers that ask for what is new
// "since" an id (polling, a stream catching up) then never miss a roar that
// committed late with a smaller id.
func (s *Store) insert(ctx context.Context, tx *db.Tx, p Post, sent *social.Sent) (int64, error) {
	if _, err := bump(ctx, tx); err != nil {
		return 0, err
	}
	now := p.At
	if now == 0 {
		now = s.now().UnixMilli()
	}
	var replyTo, repostOf any
	var parentAuthor int64
	for _, ref := range []struct {
		id   int64
		dst  *any
		what string
	}{{p.ReplyTo, &replyTo, "reply to"}, {p.RepostOf, &repostOf, "repost"}} {
		if ref.id == 0 {
			continue
		}
		var author, origin int64
		err := db.Scan(tx.QueryRow(ctx, "SELECT author_id, COALESCE(repost_of, 0) FROM roars WHERE id = ?", ref.id), &author, &origin)
		if err != nil {
			return 0, errs.E(errs.NotFound, "The roar you wanted to %s no longer exists.", ref.what)
		}
		if origin != 0 {
			return 0, errs.E(errs.Invalid, "Reply to or repost the original roar, not a repost of it.")
		}
		if blocked, err := s.graph.BlockedBetween(ctx, tx, p.Author, author); err != nil || blocked {
			return 0, orErr(err, errBlocked)
		}
		*ref.dst, parentAuthor = ref.id, author
	}
	var id int64
	err := db.Scan(tx.QueryRow(ctx, `INSERT INTO roars (author_id, body, reply_to, repost_of, created_at)
		VALUES (?, ?, ?, ?, ?) RETURNING id`, p.Author, p.Body, replyTo, repostOf, now), &id)
	if err != nil {
		if p.RepostOf != 0 && errs.KindOf(err) == errs.Conflict {
			return 0, errs.E(errs.Conflict, "You have already reposted this roar.")
		}
		return 0, fmt.Errorf("roar: insert: %w", err)
	}
	switch {
	case p.ReplyTo != 0:
		if _, err := tx.Exec(ctx, "UPDATE roars SET replies = replies + 1 WHERE id = ?", p.ReplyTo); err != nil {
			return 0, err
		}
		if err := s.notes.Add(ctx, tx, sent, now, parentAuthor, "reply", p.Author, id); err != nil {
			return 0, err
		}
	case p.RepostOf != 0:
		if _, err := tx.Exec(ctx, "UPDATE roars SET reposts = reposts + 1 WHERE id = ?", p.RepostOf); err != nil {
			return 0, err
		}
		if err := s.notes.Add(ctx, tx, sent, now, parentAuthor, "repost", p.Author, p.RepostOf); err != nil {
			return 0, err
		}
	}
	if tl := tags.Tags(p.Body); len(tl) > 0 {
		if err := s.tags.Add(ctx, tx, id, tl); err != nil {
			return 0, err
		}
		if err := s.trend.Record(ctx, tx, tl, time.UnixMilli(now)); err != nil {
			return 0, err
		}
	}
	if names := tags.Mentions(p.Body); len(names) > 0 {
		ids, err := tags.Mentioned(ctx, tx, names)
		if err != nil {
			return 0, err
		}
		for _, n := range names {
			if uid, ok := ids[n]; ok && uid != parentAuthor {
				if err := s.notes.Add(ctx, tx, sent, now, uid, "mention", p.Author, id); err != nil {
					return 0, err
				}
			}
		}
	}
	return id, nil
}

// remove deletes roar id if by is its author or a moderator; it returns the
// ids removed (the roar and the reposts of it).
func (s *Store) remove(ctx context.Context, tx *db.Tx, id, by int64, moderator bool) ([]int64, error) {
	var author, replyTo, repostOf, created int64
	var body string
	err := db.Scan(tx.QueryRow(ctx, "SELECT author_id, COALESCE(reply_to, 0), COALESCE(repost_of, 0), body, created_at FROM roars WHERE id = ?", id),
		&author, &replyTo, &repostOf, &body, &created)
	if err != nil {
		return nil, err
	}
	if author != by && !moderator {
		return nil, errNotYours
	}
	gone := []int64{id}
	rows, err := tx.Query(ctx, "SELECT id FROM roars WHERE repost_of = ?", id)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var rid int64
		if err := rows.Scan(&rid); err != nil {
			rows.Close()
			return nil, err
		}
		gone = append(gone, rid)
	}
	rows.Close()
	if replyTo != 0 {
		if _, err := tx.Exec(ctx, "UPDATE roars SET replies = replies - 1 WHERE id = ? AND replies > 0", replyTo); err != nil {
			return nil, err
		}
	}
	if repostOf != 0 {
		if _, err := tx.Exec(ctx, "UPDATE roars SET reposts = reposts - 1 WHERE id = ? AND reposts > 0", repostOf); err != nil {
			return nil, err
		}
	}
	if _, err := tx.Exec(ctx, "DELETE FROM roars WHERE id = ?", id); err != nil {
		return nil, err
	}
	// Its hashtags' uses no longer count for trending.
	if err := s.trend.Forget(ctx, tx, tags.Tags(body), time.UnixMilli(created)); err != nil {
		return nil, err
	}
	return gone, nil
}

// unrepost deletes by's repost of id, if any, and returns its id (0: none).
func (s *Store) unrepost(ctx context.Context, tx *db.Tx, id, by int64) (int64, error) {
	var rid int64
	err := db.Scan(tx.QueryRow(ctx, "SELECT id FROM roars WHERE repost_of = ? AND author_id = ?", id, by), &rid)
	if errs.KindOf(err) == errs.NotFound {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	_, err = s.remove(ctx, tx, rid, by, false)
	return rid, err
}

// like sets whether user likes roar id (idempotent) and returns its like count.
func (s *Store) like(ctx context.Context, tx *db.Tx, id, user int64, on bool, sent *social.Sent) (int64, error) {
	var author, repostOf int64
	if err := db.Scan(tx.QueryRow(ctx, "SELECT author_id, COALESCE(repost_of, 0) FROM roars WHERE id = ?", id), &author, &repostOf); err != nil {
		return 0, err
	}
	if repostOf != 0 {
		return 0, errs.E(errs.Invalid, "Like the original roar, not a repost of it.")
	}
	if on {
		if blocked, err := s.graph.BlockedBetween(ctx, tx, user, author); err != nil || blocked {
			return 0, orErr(err, errBlocked)
		}
	}
	changed, err := s.likes.Set(ctx, tx, id, user, on)
	if err != nil {
		return 0, err
	}
	if changed && on {
		if err := s.notes.Add(ctx, tx, sent, s.now().UnixMilli(), author, "like", user, id); err != nil {
			return 0, err
		}
	}
	return s.likes.Count(ctx, tx, id)
}

// relate sets or clears a relation of user to target: "follow", "block" or
// "mute" (idempotent; social.Graph's rules: a block ends the follows both
// ways). A new follow notifies target.
func (s *Store) relate(ctx context.Context, tx *db.Tx, user, target int64, kind string, on bool, sent *social.Sent) error {
	var changed bool
	var err error
	switch kind {
	case "follow":
		if changed, err = s.graph.Follow(ctx, tx, user, target, on); err == nil && changed && on {
			err = s.notes.Add(ctx, tx, sent, s.now().UnixMilli(), target, "follow", user, 0)
		}
	case "block":
		_, err = s.graph.Block(ctx, tx, user, target, on)
	case "mute":
		_, err = s.graph.Mute(ctx, tx, user, target, on)
	default:
		err = fmt.Errorf("roar: no relation %q (the Service checks)", kind)
	}
	return err
}

// report files user's report of roar id (once per user and roar).
func (s *Store) report(ctx context.Context, tx *db.Tx, id, user int64, reason string) error {
	_, err := s.reports.File(ctx, tx, id, user, reason)
	return err
}

// dismiss closes the reports of roar id without removing it.
func (s *Store) dismiss(ctx context.Context, tx *db.Tx, id int64) error {
	return s.reports.Dismiss(ctx, tx, id)
}

// markSeen marks user's notifications up to id as seen.
func (s *Store) markSeen(ctx context.Context, tx *db.Tx, user, upTo int64) error {
	return s.notes.MarkSeen(ctx, tx, user, upTo)
}

// forgetUser runs inside the account deletion: the counters of the roars the
// user liked, replied to or reposted are lowered before their rows cascade away.
func (s *Store) forgetUser(ctx context.Context, tx *db.Tx, user int64) error {
	if err := s.likes.ForgetUser(ctx, tx, user); err != nil {
		return err
	}
	for _, q := range []string{
		`UPDATE roars SET replies = (SELECT count(*) FROM roars c WHERE c.reply_to = roars.id AND c.author_id <> ?)
			WHERE id IN (SELECT reply_to FROM roars WHERE author_id = ? AND reply_to IS NOT NULL)`,
		"UPDATE roars SET reposts = reposts - 1 WHERE id IN (SELECT repost_of FROM roars WHERE author_id = ? AND repost_of IS NOT NULL) AND reposts > 0",
	} {
		args := []any{user}
		if strings.Count(q, "?") == 2 {
			args = append(args, user)
		}
		if _, err := tx.Exec(ctx, q, args...); err != nil {
			return fmt.Errorf("roar: forget user: %w", err)
		}
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
