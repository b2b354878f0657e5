package tags

import (
	"context"
	"fmt"

	"github.com/tutti-dev/tutti/internal/db"
)

// Index is an app's index of its posts by tag, in its table (a roar's
// tags: roar_tags), shaped
//
//	(tag TEXT, <subject> BIGINT REFERENCES the app's posts ON DELETE CASCADE),
//	PRIMARY KEY (tag, <subject>); INDEX (<subject>)
//
// where subject names the post column (roar_id). The primary key is the
// tag timeline's range: a tag's posts, by id.
type Index struct {
	table, subject string
	filter         string
}

// NewIndex is the index in table, whose post column is subject.
func NewIndex(table, subject string) *Index {
	t, s := db.Ident(table), db.Ident(subject)
	return &Index{table: t, subject: s,
		filter: "SELECT " + s + " FROM " + t + " WHERE tag = ?"}
}

// Add indexes post under tags (keys, as Tags gives them; a key already
// there is kept): one statement.
func (x *Index) Add(ctx context.Context, tx *db.Tx, post int64, tags []string) error {
	if len(tags) == 0 {
		return nil
	}
	args := make([]any, 0, 2*len(tags))
	for _, t := range tags {
		args = append(args, t, post)
	}
	_, err := tx.Exec(ctx, "INSERT INTO "+x.table+" (tag, "+x.subject+") VALUES "+db.Values(len(tags), 2)+" ON CONFLICT DO NOTHING", args...)
	if err != nil {
		return fmt.Errorf("tags: index: %w", err)
	}
	return nil
}

// FilterSQL selects the posts of a tag, for an app's timeline query that
// joins its posts to their authors ("p.id IN (" + FilterSQL() + ")"); one
// parameter, the tag's key.
func (x *Index) FilterSQL() string { return x.filter }

// Page returns a page of the tag's posts, newest (largest id) first, before
// the cursor (zero: from the newest), at most limit, and the cursor of the
// next page (zero: none): the tag timeline, by keyset on the index's range.
func (x *Index) Page(ctx context.Context, q db.Querier, tag string, before db.Cursor, limit int) ([]int64, db.Cursor, error) {
	query, args := x.filter, []any{tag}
	if before.ID > 0 {
		query, args = query+" AND "+x.subject+" < ?", append(args, before.ID)
	}
	rows, err := q.Query(ctx, query+" ORDER BY "+x.subject+" DESC LIMIT ?", append(args, limit+1)...)
	if err != nil {
		return nil, db.Cursor{}, fmt.Errorf("tags: page of #%s: %w", tag, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, db.Cursor{}, err
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, db.Cursor{}, err
	}
	ids, next := db.Trim(ids, limit, func(id int64) db.Cursor { return db.Cursor{ID: id} })
	return ids, next, nil
}
