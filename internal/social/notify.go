package social

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// Notifications are an app's notifications, in its table (roar's:
// roar_notifications), shaped
//
//	(id auto-numbered PRIMARY KEY, user_id, kind TEXT (the app's kinds),
//	 actor_id, <subject> NULL REFERENCES the app's posts ON DELETE CASCADE,
//	 seen 0 or 1 DEFAULT 0, created_at)
//	INDEX (user_id, id); INDEX (user_id) WHERE seen = 0
//
// user_id and actor_id reference users(id) ON DELETE CASCADE. Nobody is
// notified by someone they blocked or muted; the list and the counts leave
// out, too, what came before from those the user does not see now
// (Graph's rule: blocked or muted by the user, or blocking the user).
//
// A notification is stored in the transaction of what caused it (Add),
// collecting whom it reached (Sent); after the commit, Push sends each of
// them their unread count, which the app's live hub delivers to that
// user's streams only (ForUser). Group gathers a page's likes of one post
// ("ann and 2 others liked your song").
type Notifications struct {
	c NotificationsConfig
	q notifySQL
}

// NotificationsConfig names the table and its subject column, the app's
// graph (its blocks), the kinds stored once per actor and subject (a like
// liked again, a follow renewed: not twice) and, optionally, where the
// list finds the text of the subject.
type NotificationsConfig struct {
	Table   string
	Subject string
	Graph   *Graph
	Once    []string // kinds stored at most once per user, actor and subject; these are what Group gathers
	Excerpt *Excerpt
}

// Excerpt is where a notification's subject has its text: the app's table
// of posts (its key is id) and the column to show.
type Excerpt struct {
	Table, Column string
}

type notifySQL struct {
	add, seen, unseen, unseenOf, list string
}

// NewNotifications is the app's notifications as c says.
func NewNotifications(c NotificationsConfig) *Notifications {
	t, subj, b := db.Ident(c.Table), db.Ident(c.Subject), c.Graph.t.Blocks
	has(c.Graph.q.block, "blocks")
	n := &Notifications{c: c}
	once := "'-'"
	if len(c.Once) > 0 {
		for i := range c.Once {
			db.Ident(c.Once[i]) // a kind is a plain word
		}
		once = "'" + strings.Join(c.Once, "', '") + "'"
	}
	// Nobody is notified by someone they blocked or muted, nor twice of one
	// of the Once kinds (liking, unliking and liking again).
	n.q.add = `INSERT INTO ` + t + ` (user_id, kind, actor_id, ` + subj + `, created_at)
		SELECT ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM ` + b + ` WHERE user_id = ? AND target_id = ?)
		AND NOT EXISTS (SELECT 1 FROM ` + t + ` WHERE user_id = ? AND kind = ? AND actor_id = ?
			AND kind IN (` + once + `) AND COALESCE(` + subj + `, 0) = ?)`
	n.q.seen = "UPDATE " + t + " SET seen = 1 WHERE user_id = ? AND id <= ? AND seen = 0"
	sees := c.Graph.SeesSQL("n.user_id", "n.actor_id")
	n.q.unseen = "FROM " + t + " n WHERE n.user_id = ? AND n.seen = 0 AND " + sees
	n.q.unseenOf = "SELECT n.user_id, count(*) FROM " + t + " n WHERE n.seen = 0 AND " + sees + " AND n.user_id IN "
	subject, excerpt, join := "COALESCE(n."+subj+", 0)", "''", ""
	if e := c.Excerpt; e != nil {
		subject, excerpt = "COALESCE(x.id, 0)", "COALESCE(x."+db.Ident(e.Column)+", '')"
		join = " LEFT JOIN " + db.Ident(e.Table) + " x ON x.id = n." + subj
	}
	n.q.list = `SELECT n.id, n.kind, n.seen, n.created_at, a.id, a.username, a.display_name, a.avatar, ` + subject + `, ` + excerpt + `
		FROM ` + t + ` n JOIN users a ON a.id = n.actor_id` + join + `
		WHERE n.user_id = ? AND ` + sees
	return n
}

// Note is one thing that happened to a user.
type Note struct {
	ID        int64
	Kind      string
	Actor     Person
	Subject   int64  // what it is about (0: nothing, such as a follow)
	Excerpt   string // the subject's text (with NotificationsConfig.Excerpt)
	Seen      bool
	CreatedAt time.Time
}

// Sent collects the users a write notified, for their live unread count;
// a nil *Sent collects nothing.
type Sent []int64

func (s *Sent) add(user int64) {
	if s != nil && !slices.Contains(*s, user) {
		*s = append(*s, user)
	}
}

// Add notifies user, in tx, that actor did kind (about subject; 0: none) at
// at (unix ms); sent collects user if it was stored. Nothing is stored for
// one's own doings, for an actor the user blocked or muted, or for a Once
// kind already there.
func (n *Notifications) Add(ctx context.Context, tx *db.Tx, sent *Sent, at, user int64, kind string, actor, subject int64) error {
	if user == actor {
		return nil
	}
	var sid any
	if subject != 0 {
		sid = subject
	}
	stored, err := affected(tx.Exec(ctx, n.q.add, user, kind, actor, sid, at, user, actor, user, kind, actor, subject))
	if err != nil {
		return fmt.Errorf("social: notify: %w", err)
	}
	if stored {
		sent.add(user)
	}
	return nil
}

// MarkSeen marks user's notifications up to the id upTo as seen.
func (n *Notifications) MarkSeen(ctx context.Context, tx *db.Tx, user, upTo int64) error {
	_, err := tx.Exec(ctx, n.q.seen, user, upTo)
	return err
}

// UnseenSQL counts a user's unseen notifications as one (label, count)
// row, to join to an app's query of several facts (UNION ALL); one
// parameter, the user. label is a plain word.
func (n *Notifications) UnseenSQL(label string) string {
	return "SELECT '" + db.Ident(label) + "', count(*) " + n.q.unseen
}

// Unseen counts user's unseen notifications.
func (n *Notifications) Unseen(ctx context.Context, q db.Querier, user int64) (int64, error) {
	var c int64
	err := db.Scan(q.QueryRow(ctx, "SELECT count(*) "+n.q.unseen, user), &c)
	return c, err
}

// UnseenOf is Unseen of each of users, in one query (a user with none is 0
// in the map).
func (n *Notifications) UnseenOf(ctx context.Context, q db.Querier, users []int64) (map[int64]int64, error) {
	return countsOf(ctx, q, func(ids string) string { return n.q.unseenOf + ids + " GROUP BY n.user_id" }, users, true)
}

// countsOf runs the query that query makes of an IN list of ids, whose rows
// are (id, count), and returns the counts by id; zero puts a 0 for every id
// first (those with no row).
func countsOf(ctx context.Context, q db.Querier, query func(ids string) string, ids []int64, zero bool) (map[int64]int64, error) {
	out := make(map[int64]int64, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
		if zero {
			out[id] = 0
		}
	}
	rows, err := q.Query(ctx, query("("+db.Params(len(ids))+")"), args...)
	if err != nil {
		return nil, fmt.Errorf("social: counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id, c int64
		if err := rows.Scan(&id, &c); err != nil {
			return nil, err
		}
		out[id] = c
	}
	return out, rows.Err()
}

// Push sends each user a write notified (after its commit) their unread
// count, read in one query: send publishes it on the app's live hub, whose
// streams pass it to that user's streams only (ForUser).
func (n *Notifications) Push(ctx context.Context, q db.Querier, sent Sent, send func(user, unread int64)) error {
	if len(sent) == 0 {
		return nil
	}
	counts, err := n.UnseenOf(ctx, q, sent)
	if err != nil {
		return err
	}
	for _, id := range sent {
		send(id, counts[id])
	}
	return nil
}

// ForUser is the rule of a live stream read by viewer (0: a visitor) for an
// event about user's own notifications: only that user's streams get it.
func ForUser(viewer, user int64) bool { return viewer != 0 && viewer == user }

// List returns user's notifications, newest first, before the id before
// (0: from the newest), at most limit: one query.
func (n *Notifications) List(ctx context.Context, q db.Querier, user, before int64, limit int) ([]Note, error) {
	query, args := n.q.list, []any{user}
	if before > 0 {
		query, args = query+" AND n.id < ?", append(args, before)
	}
	rows, err := q.Query(ctx, query+" ORDER BY n.id DESC LIMIT ?", append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("social: notifications: %w", err)
	}
	defer rows.Close()
	var out []Note
	for rows.Next() {
		var no Note
		var seen, created int64
		if err := rows.Scan(&no.ID, &no.Kind, &seen, &created, &no.Actor.ID, &no.Actor.Username, &no.Actor.DisplayName,
			&no.Actor.Avatar, &no.Subject, &no.Excerpt); err != nil {
			return nil, err
		}
		no.Seen, no.CreatedAt = seen != 0, time.UnixMilli(created).UTC()
		out = append(out, no)
	}
	return out, rows.Err()
}
