package social

import (
	"context"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Friendships are both ways: one user asks (Request), the other accepts
// (Accept) or declines (Decline), the asker may withdraw (Cancel), and
// either may end it (Unfriend). Asking someone who has already asked you
// accepts their request. A block (Graph.Block) ends the friendship and the
// requests between the two, and refuses new ones.

// FriendState is how a user stands to another as friends.
type FriendState int

const (
	Strangers FriendState = iota // neither has asked
	Asked                        // the user asked the other, who has not answered
	Asking                       // the other asked the user
	Friends
)

// Person is a user as lists of people show them.
type Person struct {
	ID          int64
	Username    string
	DisplayName string
	Avatar      string // storage key; empty: none
}

// Name is what to show for the person.
func (p Person) Name() string {
	if p.DisplayName != "" {
		return p.DisplayName
	}
	return p.Username
}

// Link is a person with when the friendship or request began (a page of
// friends, of requests).
type Link struct {
	Person
	At time.Time
}

var errNoRequest = errs.E(errs.NotFound, "There is no friend request from them: they may have withdrawn it.")

func (g *Graph) needFriends() {
	has(g.q.friendState, "friends and requests")
}

// FriendState returns how user stands to other.
func (g *Graph) FriendState(ctx context.Context, q db.Querier, user, other int64) (FriendState, error) {
	g.needFriends()
	var friends, asked, asking int64
	err := db.Scan(q.QueryRow(ctx, g.q.friendState, user, other, other, user, user, other), &friends, &asking, &asked)
	switch {
	case err != nil:
		return Strangers, fmt.Errorf("social: friend state: %w", err)
	case friends > 0:
		return Friends, nil
	case asking > 0: // both asked at once: answering is what is left to do
		return Asking, nil
	case asked > 0:
		return Asked, nil
	}
	return Strangers, nil
}

// Request sends from's friend request to to and returns where that leaves
// them: Asked, or Friends if to had asked from already (asking back
// accepts). Asking again, or asking a friend, changes nothing (changed
// false). Refused: oneself (Invalid), users who block one another
// (ErrBlocked).
func (g *Graph) Request(ctx context.Context, tx *db.Tx, from, to int64) (state FriendState, changed bool, err error) {
	g.needFriends()
	if from == to {
		return Strangers, false, errSelf("befriend")
	}
	if err := g.refuseBlocked(ctx, tx, from, to); err != nil {
		return Strangers, false, err
	}
	switch st, err := g.FriendState(ctx, tx, from, to); {
	case err != nil:
		return Strangers, false, err
	case st == Friends:
		return Friends, false, nil
	case st == Asking:
		return Friends, true, g.befriend(ctx, tx, from, to)
	}
	changed, err = affected(tx.Exec(ctx, g.q.ask, from, to, g.now().UnixMilli()))
	if err != nil {
		return Strangers, false, fmt.Errorf("social: friend request: %w", err)
	}
	return Asked, changed, nil
}

// befriend makes a and b friends and clears the requests between them.
func (g *Graph) befriend(ctx context.Context, tx *db.Tx, a, b int64) error {
	if _, err := tx.Exec(ctx, g.q.unaskBoth, a, b, b, a); err != nil {
		return fmt.Errorf("social: befriend: %w", err)
	}
	now := g.now().UnixMilli()
	if _, err := tx.Exec(ctx, g.q.befriend, a, b, now, b, a, now); err != nil {
		return fmt.Errorf("social: befriend: %w", err)
	}
	return nil
}

// Accept makes user and from friends, answering from's request; changed
// is false if they were friends already. Without a request from from, it
// is NotFound.
func (g *Graph) Accept(ctx context.Context, tx *db.Tx, user, from int64) (changed bool, err error) {
	g.needFriends()
	st, err := g.FriendState(ctx, tx, user, from)
	switch {
	case err != nil:
		return false, err
	case st == Friends:
		return false, nil
	case st != Asking:
		return false, errNoRequest
	}
	return true, g.befriend(ctx, tx, user, from)
}

// Decline turns down from's request to user; changed is false if there was
// none (withdrawn, or declined already).
func (g *Graph) Decline(ctx context.Context, tx *db.Tx, user, from int64) (bool, error) {
	g.needFriends()
	return affected(tx.Exec(ctx, g.q.unask, from, user))
}

// Cancel withdraws from's request to to; changed is false if there was none
// (answered, or withdrawn already).
func (g *Graph) Cancel(ctx context.Context, tx *db.Tx, from, to int64) (bool, error) {
	g.needFriends()
	return affected(tx.Exec(ctx, g.q.unask, from, to))
}

// Unfriend ends the friendship of user and other, both ways; changed is
// false if they were not friends.
func (g *Graph) Unfriend(ctx context.Context, tx *db.Tx, user, other int64) (bool, error) {
	g.needFriends()
	return affected(tx.Exec(ctx, g.q.unfriendBoth, user, other, other, user))
}

// Friends returns a page of user's friends, the newest friendships first,
// after the cursor (zero: from the newest), at most limit, and the cursor of
// the next page (zero: none).
func (g *Graph) Friends(ctx context.Context, q db.Querier, user int64, after db.Cursor, limit int) ([]Link, db.Cursor, error) {
	g.needFriends()
	return links(ctx, q, g.q.friends, "f", user, after, limit)
}

// Requests returns a page of the friend requests user received (incoming)
// or sent, newest first, after the cursor, and the cursor of the next page.
func (g *Graph) Requests(ctx context.Context, q db.Querier, user int64, incoming bool, after db.Cursor, limit int) ([]Link, db.Cursor, error) {
	g.needFriends()
	query := g.q.requestsOut
	if incoming {
		query = g.q.requestsIn
	}
	return links(ctx, q, query, "r", user, after, limit)
}

// links runs a people query (id, username, display_name, avatar,
// created_at of alias) keyset-paginated by (created_at, user id), newest
// first.
func links(ctx context.Context, q db.Querier, query, alias string, user int64, after db.Cursor, limit int) ([]Link, db.Cursor, error) {
	args := []any{user}
	if !after.IsZero() {
		query += " AND (" + alias + ".created_at < ? OR (" + alias + ".created_at = ? AND u.id < ?))"
		at := after.At.UnixMilli()
		args = append(args, at, at, after.ID)
	}
	query += " ORDER BY " + alias + ".created_at DESC, u.id DESC LIMIT ?"
	args = append(args, limit+1)
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, db.Cursor{}, fmt.Errorf("social: people: %w", err)
	}
	defer rows.Close()
	var out []Link
	for rows.Next() {
		var l Link
		var at int64
		if err := rows.Scan(&l.ID, &l.Username, &l.DisplayName, &l.Avatar, &at); err != nil {
			return nil, db.Cursor{}, err
		}
		l.At = time.UnixMilli(at).UTC()
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, db.Cursor{}, err
	}
	out, next := db.Trim(out, limit, func(l Link) db.Cursor { return db.Cursor{At: l.At, ID: l.ID} })
	return out, next, nil
}
