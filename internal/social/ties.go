package social

import (
	"context"
	"fmt"

	"github.com/tutti-dev/tutti/internal/db"
)

// Tie is how a viewer stands to one person of a list (people search): as
// friends, and by blocks. A graph without friendships or blocks leaves
// those parts zero.
type Tie struct {
	Friend   FriendState
	Blocked  bool // the viewer blocks them
	BlocksMe bool // they block the viewer
}

// Ties returns how viewer stands to each of others (a page of people), in
// one query whatever their number: range scans of the viewer's friends,
// requests and blocks over the span of the ids (Span), kept to others.
// People the viewer has no tie to are left out; a visitor (0) has none.
func (g *Graph) Ties(ctx context.Context, q db.Querier, viewer int64, others []int64) (map[int64]Tie, error) {
	out := map[int64]Tie{}
	if viewer == 0 || len(others) == 0 {
		return out, nil
	}
	lo, hi, want := Span(others)
	var parts []string
	var args []any
	add := func(sql string) {
		parts = append(parts, sql)
		args = append(args, viewer, lo, hi)
	}
	if fr := g.t.Friends; fr != "" {
		add("SELECT 'friend', friend_id FROM " + db.Ident(fr) + " WHERE user_id = ? AND friend_id BETWEEN ? AND ?")
	}
	if rq := g.t.Requests; rq != "" {
		add("SELECT 'asked', to_id FROM " + db.Ident(rq) + " WHERE from_id = ? AND to_id BETWEEN ? AND ?")
		add("SELECT 'asking', from_id FROM " + db.Ident(rq) + " WHERE to_id = ? AND from_id BETWEEN ? AND ?")
	}
	if b := g.t.Blocks; b != "" {
		add("SELECT 'block', target_id FROM " + db.Ident(b) + " WHERE user_id = ? AND kind = 'block' AND target_id BETWEEN ? AND ?")
		add("SELECT 'blocked-by', user_id FROM " + db.Ident(b) + " WHERE target_id = ? AND kind = 'block' AND user_id BETWEEN ? AND ?")
	}
	if len(parts) == 0 {
		return out, nil
	}
	query := parts[0]
	for _, p := range parts[1:] {
		query += " UNION ALL " + p
	}
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("social: ties: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var id int64
		if err := rows.Scan(&kind, &id); err != nil {
			return nil, fmt.Errorf("social: ties: %w", err)
		}
		if !want[id] {
			continue
		}
		t := out[id]
		switch kind {
		case "friend":
			t.Friend = Friends
		case "asked":
			if t.Friend != Friends && t.Friend != Asking { // both asked at once: answering is what is left
				t.Friend = Asked
			}
		case "asking":
			if t.Friend != Friends {
				t.Friend = Asking
			}
		case "block":
			t.Blocked = true
		case "blocked-by":
			t.BlocksMe = true
		}
		out[id] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("social: ties: %w", err)
	}
	return out, nil
}
