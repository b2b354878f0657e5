package social

import (
	"context"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// Likes are an app's likes of its posts, in its table (roar's:
// roar_likes), shaped
//
//	(<subject> REFERENCES the app's posts ON DELETE CASCADE,
//	 user_id REFERENCES users(id) ON DELETE CASCADE, created_at),
//	PRIMARY KEY (<subject>, user_id); INDEX (user_id, <subject>)
//
// Liking is idempotent: liking twice is one like. With a Counter, the count
// is kept on the post's row (roars.likes), raised and lowered in the
// liking transaction, so that a timeline reads it with the post; without
// one, Counts counts the rows.
//
// The app decides who may like what (not across a block: Graph.BlockedBetween
// with the post's author, which the app knows) and whom to notify (Set
// says whether anything changed).
type Likes struct {
	c LikesConfig
	q likesSQL
}

// LikesConfig names the table, its post column and the optional counter;
// Now is the clock of created_at.
type LikesConfig struct {
	Table, Subject string
	Counter        *Counter
	Now            func() time.Time
}

// Counter is a count kept on the app's post row: its table (keyed by id)
// and column.
type Counter struct {
	Table, Column string
}

type likesSQL struct {
	like, unlike, up, down, count, counts, liked, forget string
}

// NewLikes is the app's likes as c says.
func NewLikes(c LikesConfig) *Likes {
	l := &Likes{c: c}
	t, s := db.Ident(c.Table), db.Ident(c.Subject)
	q := &l.q
	q.like = "INSERT INTO " + t + " (" + s + ", user_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
	q.unlike = "DELETE FROM " + t + " WHERE " + s + " = ? AND user_id = ?"
	q.liked = "SELECT " + s + " FROM " + t + " WHERE user_id = ? AND " + s + " BETWEEN ? AND ?"
	if k := c.Counter; k != nil {
		kt, kc := db.Ident(k.Table), db.Ident(k.Column)
		q.up = "UPDATE " + kt + " SET " + kc + " = " + kc + " + 1 WHERE id = ?"
		q.down = "UPDATE " + kt + " SET " + kc + " = " + kc + " - 1 WHERE id = ? AND " + kc + " > 0"
		q.count = "SELECT " + kc + " FROM " + kt + " WHERE id = ?"
		q.counts = "SELECT id, " + kc + " FROM " + kt + " WHERE id IN "
		q.forget = "UPDATE " + kt + " SET " + kc + " = " + kc + " - 1 WHERE id IN (SELECT " + s + " FROM " + t +
			" WHERE user_id = ?) AND " + kc + " > 0"
	} else {
		q.count = "SELECT count(*) FROM " + t + " WHERE " + s + " = ?"
		q.counts = "SELECT " + s + ", count(*) FROM " + t + " WHERE " + s + " IN "
	}
	return l
}

// Set sets whether user likes post (idempotent) and reports whether that
// changed anything (the app notifies on a new like).
func (l *Likes) Set(ctx context.Context, tx *db.Tx, post, user int64, on bool) (bool, error) {
	var changed bool
	var err error
	if on {
		changed, err = affected(tx.Exec(ctx, l.q.like, post, user, l.c.Now().UnixMilli()))
	} else {
		changed, err = affected(tx.Exec(ctx, l.q.unlike, post, user))
	}
	if err == nil && changed && l.q.up != "" {
		counter := l.q.up
		if !on {
			counter = l.q.down
		}
		_, err = tx.Exec(ctx, counter, post)
	}
	if err != nil {
		return false, fmt.Errorf("social: like: %w", err)
	}
	return changed, nil
}

// Count returns post's like count.
func (l *Likes) Count(ctx context.Context, q db.Querier, post int64) (int64, error) {
	var n int64
	err := db.Scan(q.QueryRow(ctx, l.q.count, post), &n)
	return n, err
}

// Counts returns the like counts of posts in one query (a post without
// likes is 0; with a Counter, a post that does not exist is left out).
func (l *Likes) Counts(ctx context.Context, q db.Querier, posts []int64) (map[int64]int64, error) {
	if l.c.Counter != nil {
		return countsOf(ctx, q, func(ids string) string { return l.q.counts + ids }, posts, false)
	}
	return countsOf(ctx, q, func(ids string) string { return l.q.counts + ids + " GROUP BY " + l.c.Subject }, posts, true)
}

// LikedSQL selects, as (label, post) rows, the posts a user liked in a
// range of ids, for an app's query of several facts (UNION ALL) whose
// caller keeps those of its page (Span). Three parameters: the user, the
// range's low and high ids. label is a plain word.
func (l *Likes) LikedSQL(label string) string {
	return "SELECT '" + db.Ident(label) + "', " + l.q.liked[len("SELECT "):]
}

// Liked returns which of posts user likes: one query, a range scan on
// (user_id, post) over the span of posts, whatever their number (Among).
func (l *Likes) Liked(ctx context.Context, q db.Querier, user int64, posts []int64) (map[int64]bool, error) {
	return Among(ctx, q, l.q.liked, user, posts)
}

// Among runs query, which selects one id column with three parameters (a
// user, and the low and high ids of a range, as LikedSQL without its
// label), over the span of ids (Span), and returns those of ids it found:
// what a user did to a page of posts, in one query (0: a visitor, who did
// nothing).
func Among(ctx context.Context, q db.Querier, query string, user int64, ids []int64) (map[int64]bool, error) {
	if user == 0 || len(ids) == 0 {
		return map[int64]bool{}, nil
	}
	lo, hi, want := Span(ids)
	found, err := idSet(ctx, q, query, user, lo, hi)
	if err != nil {
		return nil, err
	}
	for id := range found {
		if !want[id] {
			delete(found, id)
		}
	}
	return found, nil
}

// ForgetUser runs in the deletion of user's account, before their likes
// cascade away: the counters of the posts they liked go down.
func (l *Likes) ForgetUser(ctx context.Context, tx *db.Tx, user int64) error {
	if l.q.forget == "" {
		return nil
	}
	if _, err := tx.Exec(ctx, l.q.forget, user); err != nil {
		return fmt.Errorf("social: forget likes: %w", err)
	}
	return nil
}

// Span is the range of ids (0, 0 if none) and the set of them, for a range
// scan whose rows are then kept to the set: one query for a page of ids
// without a parameter per id.
func Span(ids []int64) (lo, hi int64, want map[int64]bool) {
	want = make(map[int64]bool, len(ids))
	if len(ids) > 0 {
		lo, hi = ids[0], ids[0]
	}
	for _, id := range ids {
		lo, hi = min(lo, id), max(hi, id)
		want[id] = true
	}
	return lo, hi, want
}
