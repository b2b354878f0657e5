package tags

import (
	"context"
	"fmt"

	"github.com/tutti-dev/tutti/internal/db"
)

// Mentioned maps mentioned usernames (lower case, as Mentions gives them) to
// the ids of the users who have them, leaving out names nobody has: one
// query on auth's users.
func Mentioned(ctx context.Context, q db.Querier, names []string) (map[string]int64, error) {
	out := map[string]int64{}
	if len(names) == 0 {
		return out, nil
	}
	args := make([]any, len(names))
	for i, n := range names {
		args[i] = n
	}
	rows, err := q.Query(ctx, "SELECT username_key, id FROM users WHERE username_key IN ("+db.Params(len(names))+")", args...)
	if err != nil {
		return nil, fmt.Errorf("tags: mentioned users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var id int64
		if err := rows.Scan(&k, &id); err != nil {
			return nil, err
		}
		out[k] = id
	}
	return out, rows.Err()
}
