package social

import (
	"context"
	"fmt"

	"github.com/tutti-dev/tutti/internal/db"
)

// Relations are a viewer's blocks and mutes and who blocks the viewer: what
// every list the viewer reads leaves out.
type Relations struct {
	Hidden map[int64]bool // users the viewer does not see: muted, blocked, or blocking the viewer
	Blocks map[int64]bool // users the viewer blocked
	Mutes  map[int64]bool // users the viewer muted
}

// NewRelations is a viewer's relations with none yet (a visitor's).
func NewRelations() *Relations {
	return &Relations{Hidden: map[int64]bool{}, Blocks: map[int64]bool{}, Mutes: map[int64]bool{}}
}

// Add notes a row of RelationsSQL: kind "block", "mute" or "blocked-by".
func (r *Relations) Add(kind string, user int64) {
	r.Hidden[user] = true
	switch kind {
	case "block":
		r.Blocks[user] = true
	case "mute":
		r.Mutes[user] = true
	}
}

// Hides reports whether the viewer does not see what user does (nil: a
// visitor, who sees everyone).
func (r *Relations) Hides(user int64) bool { return r != nil && r.Hidden[user] }

// RelationsSQL selects a viewer's relations as (kind, user id) rows, for
// Relations.Add: its blocks and mutes, and ('blocked-by', id) for those who
// block it. Two parameters: the viewer, twice.
func (g *Graph) RelationsSQL() string { has(g.q.relations, "blocks"); return g.q.relations }

// Relations loads viewer's relations (0: a visitor, who has none).
func (g *Graph) Relations(ctx context.Context, q db.Querier, viewer int64) (*Relations, error) {
	rel := NewRelations()
	if viewer == 0 {
		return rel, nil
	}
	rows, err := q.Query(ctx, g.RelationsSQL(), viewer, viewer)
	if err != nil {
		return nil, fmt.Errorf("social: relations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var id int64
		if err := rows.Scan(&kind, &id); err != nil {
			return nil, err
		}
		rel.Add(kind, id)
	}
	return rel, rows.Err()
}

// HiddenSQL is a condition that keeps out the rows whose user (the SQL
// expression col, such as "p.author_id") the viewer does not see: muted or
// blocked by the viewer, or blocking the viewer. Two parameters: the
// viewer, twice (HiddenArgs).
func (g *Graph) HiddenSQL(col string) string {
	has(g.q.block, "blocks")
	return col + " NOT IN (SELECT target_id FROM " + g.t.Blocks + " WHERE user_id = ?) AND " +
		col + " NOT IN (SELECT user_id FROM " + g.t.Blocks + " WHERE target_id = ? AND kind = 'block')"
}

// SeesSQL is a condition without parameters that holds when the user
// whose id is the SQL expression viewer sees the user whose id is user:
// not muted or blocked by viewer, not blocking viewer (Relations's rule, in
// a query over many viewers, such as notifications').
func (g *Graph) SeesSQL(viewer, user string) string {
	has(g.q.block, "blocks")
	b := g.t.Blocks
	return "NOT EXISTS (SELECT 1 FROM " + b + " WHERE user_id = " + viewer + " AND kind IN ('block', 'mute') AND target_id = " + user + ")" +
		" AND NOT EXISTS (SELECT 1 FROM " + b + " WHERE user_id = " + user + " AND kind = 'block' AND target_id = " + viewer + ")"
}

// HiddenArgs are HiddenSQL's parameters.
func HiddenArgs(viewer int64) []any { return []any{viewer, viewer} }

// Standing is how a viewer and a user stand, with the user's counts, as a
// profile shows them. Of the follows, only with a Follows table; of the
// friendship, only with Friends and Requests.
type Standing struct {
	Followers, Following, FriendCount int64
	// The viewer's relation to the user (all false for a visitor).
	Follows, FollowsMe, Blocked, Muted, BlocksMe bool
	Friends, Asked, Asking                       bool // Asked: the viewer asked them; Asking: they asked the viewer
}

// StandingCols are the SQL columns of a Standing of the user whose id is
// the SQL expression user (such as "u.id"), to add to an app's query of
// the user (a comma first), scanned with Standing.Dest; their parameters
// are StandingArgs, in the columns' place. An app builds its query once.
func (g *Graph) StandingCols(user string) string {
	var s string
	if f := g.t.Follows; f != "" {
		s += `, (SELECT count(*) FROM ` + f + ` WHERE followee_id = ` + user + `)
			, (SELECT count(*) FROM ` + f + ` WHERE follower_id = ` + user + `)
			, EXISTS (SELECT 1 FROM ` + f + ` WHERE follower_id = ? AND followee_id = ` + user + `)
			, EXISTS (SELECT 1 FROM ` + f + ` WHERE follower_id = ` + user + ` AND followee_id = ?)`
	}
	if b := g.t.Blocks; b != "" {
		s += `, EXISTS (SELECT 1 FROM ` + b + ` WHERE user_id = ? AND target_id = ` + user + ` AND kind = 'block')
			, EXISTS (SELECT 1 FROM ` + b + ` WHERE user_id = ? AND target_id = ` + user + ` AND kind = 'mute')
			, EXISTS (SELECT 1 FROM ` + b + ` WHERE user_id = ` + user + ` AND target_id = ? AND kind = 'block')`
	}
	if fr, rq := g.t.Friends, g.t.Requests; fr != "" && rq != "" {
		s += `, (SELECT count(*) FROM ` + fr + ` WHERE user_id = ` + user + `)
			, EXISTS (SELECT 1 FROM ` + fr + ` WHERE user_id = ? AND friend_id = ` + user + `)
			, EXISTS (SELECT 1 FROM ` + rq + ` WHERE from_id = ? AND to_id = ` + user + `)
			, EXISTS (SELECT 1 FROM ` + rq + ` WHERE from_id = ` + user + ` AND to_id = ?)`
	}
	return s
}

// StandingArgs are the parameters of StandingCols for viewer (0: a visitor).
func (g *Graph) StandingArgs(viewer int64) []any {
	n := 0
	if g.t.Follows != "" {
		n += 2
	}
	if g.t.Blocks != "" {
		n += 3
	}
	if g.t.Friends != "" && g.t.Requests != "" {
		n += 3
	}
	args := make([]any, n)
	for i := range args {
		args[i] = viewer
	}
	return args
}

// Dest are the scan destinations of StandingCols, in order.
func (s *Standing) Dest(g *Graph) []any {
	var d []any
	if g.t.Follows != "" {
		d = append(d, &s.Followers, &s.Following, &s.Follows, &s.FollowsMe)
	}
	if g.t.Blocks != "" {
		d = append(d, &s.Blocked, &s.Muted, &s.BlocksMe)
	}
	if g.t.Friends != "" && g.t.Requests != "" {
		d = append(d, &s.FriendCount, &s.Friends, &s.Asked, &s.Asking)
	}
	return d
}
