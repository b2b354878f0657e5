package tags

import (
	"context"
	"fmt"
	"testing"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// schema is an app's posts and its tag index, in the shape Index documents.
const schema = `
CREATE TABLE t_posts (
    id        AUTOID,
    author_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    body      TEXT NOT NULL DEFAULT ''
);
CREATE TABLE t_tags (
    tag     TEXT NOT NULL,
    post_id BIGINT NOT NULL REFERENCES t_posts(id) ON DELETE CASCADE,
    PRIMARY KEY (tag, post_id)
);
CREATE INDEX t_tags_post ON t_tags (post_id);
CREATE TABLE t_uses (
    tag    TEXT NOT NULL,
    bucket BIGINT NOT NULL,
    uses   BIGINT NOT NULL,
    PRIMARY KEY (tag, bucket)
);
CREATE INDEX t_uses_bucket ON t_uses (bucket);
`

// each runs fn on a database with users and the t_ tables, on SQLite and,
// with TUTTI_TEST_POSTGRES, PostgreSQL.
func each(t *testing.T, fn func(t *testing.T, d *db.DB)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		dbtest.Exec(t, d, schema)
		fn(t, d)
	}, auth.Migrations)
}

// write runs fn in a transaction and fails the test on an error.
func write(t *testing.T, d *db.DB, fn func(ctx context.Context, tx *db.Tx) error) {
	t.Helper()
	ctx := context.Background()
	if err := d.WithTx(ctx, func(tx *db.Tx) error { return fn(ctx, tx) }); err != nil {
		t.Fatal(err)
	}
}

// TestIndexAndTimeline: posts indexed under their tags, a tag's posts newest
// first a page at a time, the filter in an app's own query, and the rows
// gone with their post.
func TestIndexAndTimeline(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		x := NewIndex("t_tags", "post_id")
		ann := dbtest.Users(t, d, "ann")[0]
		var posts []int64
		for i, body := range []string{"#Jazz at 8", "no tags", "#jazz #blues", "#blues", "#JAZZ again #jazz", "#jazz"} {
			write(t, d, func(ctx context.Context, tx *db.Tx) error {
				var id int64
				if err := db.Scan(tx.QueryRow(ctx, "INSERT INTO t_posts (author_id, body) VALUES (?, ?) RETURNING id", ann, body), &id); err != nil {
					return err
				}
				posts = append(posts, id)
				if err := x.Add(ctx, tx, id, Tags(body)); err != nil {
					return err
				}
				if i == 0 { // indexing again keeps what is there
					return x.Add(ctx, tx, id, Tags(body))
				}
				return nil
			})
		}
		var got []int64
		for c, n := (db.Cursor{}), 0; n < 10; n++ {
			ids, next, err := x.Page(ctx, d, "jazz", c, 2)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids...)
			if c = next; c.IsZero() {
				break
			}
		}
		if want := fmt.Sprint([]int64{posts[5], posts[4], posts[2], posts[0]}); fmt.Sprint(got) != want {
			t.Errorf("#jazz, two at a time = %v; want %s (newest first, each once)", got, want)
		}
		if ids, next, err := x.Page(ctx, d, "rock", db.Cursor{}, 10); err != nil || len(ids) != 0 || !next.IsZero() {
			t.Errorf("#rock = %v, %v, %v; want nothing", ids, next, err)
		}
		var n int
		if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM t_posts p WHERE p.id IN ("+x.FilterSQL()+")", "blues"), &n); err != nil || n != 2 {
			t.Errorf("posts with #blues by FilterSQL = %d, %v; want 2", n, err)
		}
		write(t, d, func(ctx context.Context, tx *db.Tx) error {
			_, err := tx.Exec(ctx, "DELETE FROM t_posts WHERE id = ?", posts[2])
			return err
		})
		if ids, _, _ := x.Page(ctx, d, "blues", db.Cursor{}, 10); fmt.Sprint(ids) != fmt.Sprint([]int64{posts[3]}) {
			t.Errorf("#blues after a post went = %v; want only %d", ids, posts[3])
		}
	})
}

// TestMentioned: the users a text mentions, by their lower-case names; a
// name nobody has is left out.
func TestMentioned(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB) {
		ids := dbtest.Users(t, d, "Ann", "bob")
		got, err := Mentioned(context.Background(), d, Mentions("hi @ANN and @bob and @nobody"))
		if err != nil || len(got) != 2 || got["ann"] != ids[0] || got["bob"] != ids[1] {
			t.Errorf("Mentioned = %v, %v; want ann %d, bob %d", got, err, ids[0], ids[1])
		}
		if got, err := Mentioned(context.Background(), d, nil); err != nil || len(got) != 0 {
			t.Errorf("Mentioned(none) = %v, %v; want empty", got, err)
		}
	})
}
