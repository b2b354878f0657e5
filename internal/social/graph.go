package social

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// GraphTables name an app's tables of the graph; an app leaves out those it
// has no use for (roar has no friendships, music no follows). Shapes (ids
// reference users(id) ON DELETE CASCADE; created_at is unix ms):
//
//	Follows  (follower_id, followee_id, created_at), PRIMARY KEY (follower_id, followee_id),
//	         CHECK (follower_id <> followee_id); INDEX (followee_id, follower_id)
//	Blocks   (user_id, target_id, kind, created_at), kind 'block' or 'mute',
//	         PRIMARY KEY (user_id, kind, target_id), CHECK (user_id <> target_id); INDEX (target_id, kind)
//	Friends  (user_id, friend_id, created_at), PRIMARY KEY (user_id, friend_id),
//	         CHECK (user_id <> friend_id): a friendship is two rows, one each way
//	Requests (from_id, to_id, created_at), PRIMARY KEY (from_id, to_id),
//	         CHECK (from_id <> to_id); INDEX (to_id, created_at)
type GraphTables struct {
	Follows  string
	Blocks   string
	Friends  string
	Requests string
}

// Graph is one app's graph between its users: who follows whom (one way),
// who are friends (both ways, after a request and its acceptance), and who
// blocks or mutes whom. A block works both ways: neither may follow,
// befriend, reply to or like the other, and it ends what stood between them.
// A mute only hides: the muted user's doings are left out of what the user
// reads and is notified of.
type Graph struct {
	t   GraphTables
	now func() time.Time
	q   graphSQL
}

// graphSQL is the graph's statements, built once (NewGraph).
type graphSQL struct {
	blockedBetween, relations, followees, friendIDs, following string

	follow, unfollow, block, unblock, unfollowBoth string
	unfriendBoth, unaskBoth                        string

	friendState, ask, askedBy, befriend, unask string
	friends, requestsIn, requestsOut           string
}

// NewGraph is the graph over the app's tables t, its clock now.
func NewGraph(t GraphTables, now func() time.Time) *Graph {
	g := &Graph{t: t, now: now}
	q := &g.q
	if t.Blocks != "" {
		b := db.Ident(t.Blocks)
		q.blockedBetween = `SELECT count(*) FROM ` + b + ` WHERE kind = 'block'
			AND ((user_id = ? AND target_id = ?) OR (user_id = ? AND target_id = ?))`
		q.relations = `SELECT kind, target_id FROM ` + b + ` WHERE user_id = ?
		UNION ALL SELECT 'blocked-by', user_id FROM ` + b + ` WHERE target_id = ? AND kind = 'block'`
		q.block = "INSERT INTO " + b + " (user_id, target_id, kind, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"
		q.unblock = "DELETE FROM " + b + " WHERE user_id = ? AND target_id = ? AND kind = ?"
	}
	if t.Follows != "" {
		f := db.Ident(t.Follows)
		q.followees = "SELECT followee_id FROM " + f + " WHERE follower_id = ?"
		q.following = q.followees
		q.follow = "INSERT INTO " + f + " (follower_id, followee_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
		q.unfollow = "DELETE FROM " + f + " WHERE follower_id = ? AND followee_id = ?"
		q.unfollowBoth = "DELETE FROM " + f + " WHERE (follower_id = ? AND followee_id = ?) OR (follower_id = ? AND followee_id = ?)"
	}
	if t.Friends != "" {
		fr := db.Ident(t.Friends)
		q.friendIDs = "SELECT friend_id FROM " + fr + " WHERE user_id = ?"
		q.unfriendBoth = "DELETE FROM " + fr + " WHERE (user_id = ? AND friend_id = ?) OR (user_id = ? AND friend_id = ?)"
		q.befriend = "INSERT INTO " + fr + " (user_id, friend_id, created_at) VALUES (?, ?, ?), (?, ?, ?) ON CONFLICT DO NOTHING"
		q.friends = `SELECT u.id, u.username, u.display_name, u.avatar, f.created_at FROM ` + fr + ` f
			JOIN users u ON u.id = f.friend_id WHERE f.user_id = ?`
	}
	if t.Requests != "" {
		rq := db.Ident(t.Requests)
		q.unaskBoth = "DELETE FROM " + rq + " WHERE (from_id = ? AND to_id = ?) OR (from_id = ? AND to_id = ?)"
		q.ask = "INSERT INTO " + rq + " (from_id, to_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
		q.unask = "DELETE FROM " + rq + " WHERE from_id = ? AND to_id = ?"
		q.askedBy = "SELECT count(*) FROM " + rq + " WHERE from_id = ? AND to_id = ?"
		q.requestsIn = `SELECT u.id, u.username, u.display_name, u.avatar, r.created_at FROM ` + rq + ` r
			JOIN users u ON u.id = r.from_id WHERE r.to_id = ?`
		q.requestsOut = `SELECT u.id, u.username, u.display_name, u.avatar, r.created_at FROM ` + rq + ` r
			JOIN users u ON u.id = r.to_id WHERE r.from_id = ?`
		if t.Friends != "" {
			q.friendState = `SELECT
				(SELECT count(*) FROM ` + db.Ident(t.Friends) + ` WHERE user_id = ? AND friend_id = ?),
				(SELECT count(*) FROM ` + rq + ` WHERE from_id = ? AND to_id = ?),
				(SELECT count(*) FROM ` + rq + ` WHERE from_id = ? AND to_id = ?)`
		}
	}
	return g
}

// ErrBlocked refuses what users who block one another (either way) would do
// to each other.
var ErrBlocked = errs.E(errs.Forbidden, "You cannot do that: one of you has blocked the other.")

// errSelf refuses relating to oneself.
func errSelf(verb string) error { return errs.E(errs.Invalid, "You cannot %s yourself.", verb) }

// has panics when the app's graph lacks the table a method needs: a bug in
// the app's wiring, found by its first test.
func has(stmt, what string) {
	if stmt == "" {
		panic("social: this graph has no " + what + " table")
	}
}

// BlockedBetween reports whether a and b block each other, either way.
func (g *Graph) BlockedBetween(ctx context.Context, q db.Querier, a, b int64) (bool, error) {
	if a == b || g.q.blockedBetween == "" {
		return false, nil
	}
	var n int64
	err := db.Scan(q.QueryRow(ctx, g.q.blockedBetween, a, b, b, a), &n)
	return n > 0, err
}

// refuseBlocked is ErrBlocked if a and b block each other.
func (g *Graph) refuseBlocked(ctx context.Context, tx *db.Tx, a, b int64) error {
	blocked, err := g.BlockedBetween(ctx, tx, a, b)
	if err == nil && blocked {
		err = ErrBlocked
	}
	return err
}

// Follow sets whether user follows target (idempotent) and reports whether
// that changed anything. Following someone who blocks user, or whom user
// blocks, is refused (ErrBlocked).
func (g *Graph) Follow(ctx context.Context, tx *db.Tx, user, target int64, on bool) (bool, error) {
	has(g.q.follow, "follows")
	if user == target {
		return false, errSelf("follow")
	}
	if !on {
		return affected(tx.Exec(ctx, g.q.unfollow, user, target))
	}
	if err := g.refuseBlocked(ctx, tx, user, target); err != nil {
		return false, err
	}
	return affected(tx.Exec(ctx, g.q.follow, user, target, g.now().UnixMilli()))
}

// Block sets whether user blocks target (idempotent) and reports whether
// that changed anything. A new block ends what stood between them, both
// ways: follows, the friendship, friend requests.
func (g *Graph) Block(ctx context.Context, tx *db.Tx, user, target int64, on bool) (bool, error) {
	changed, err := g.setBlock(ctx, tx, "block", user, target, on)
	if err != nil || !changed || !on {
		return changed, err
	}
	for _, q := range []string{g.q.unfollowBoth, g.q.unfriendBoth, g.q.unaskBoth} {
		if q == "" {
			continue
		}
		if _, err := tx.Exec(ctx, q, user, target, target, user); err != nil {
			return false, fmt.Errorf("social: block: %w", err)
		}
	}
	return true, nil
}

// Mute sets whether user mutes target (idempotent) and reports whether that
// changed anything.
func (g *Graph) Mute(ctx context.Context, tx *db.Tx, user, target int64, on bool) (bool, error) {
	return g.setBlock(ctx, tx, "mute", user, target, on)
}

func (g *Graph) setBlock(ctx context.Context, tx *db.Tx, kind string, user, target int64, on bool) (bool, error) {
	has(g.q.block, "blocks")
	if user == target {
		return false, errSelf(kind)
	}
	var changed bool
	var err error
	if on {
		changed, err = affected(tx.Exec(ctx, g.q.block, user, target, kind, g.now().UnixMilli()))
	} else {
		changed, err = affected(tx.Exec(ctx, g.q.unblock, user, target, kind))
	}
	if err != nil {
		return false, fmt.Errorf("social: %s: %w", kind, err)
	}
	return changed, nil
}

// affected is whether a write changed a row.
func affected(res sql.Result, err error) (bool, error) {
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Following returns the ids user follows.
func (g *Graph) Following(ctx context.Context, q db.Querier, user int64) (map[int64]bool, error) {
	has(g.q.following, "follows")
	return idSet(ctx, q, g.q.following, user)
}

// FriendIDs returns the ids of user's friends.
func (g *Graph) FriendIDs(ctx context.Context, q db.Querier, user int64) (map[int64]bool, error) {
	has(g.q.friendIDs, "friends")
	return idSet(ctx, q, g.q.friendIDs, user)
}

// FolloweesSQL selects the ids a user follows, for an app's query
// ("author_id IN (" + FolloweesSQL() + ")"); one parameter, the user.
func (g *Graph) FolloweesSQL() string { has(g.q.followees, "follows"); return g.q.followees }

// FriendsSQL selects the ids of a user's friends, for an app's query (a
// timeline of friends' posts); one parameter, the user.
func (g *Graph) FriendsSQL() string { has(g.q.friendIDs, "friends"); return g.q.friendIDs }

// idSet runs a query of one id column and returns its ids as a set.
func idSet(ctx context.Context, q db.Querier, query string, args ...any) (map[int64]bool, error) {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("social: %w", err)
	}
	defer rows.Close()
	out := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}
