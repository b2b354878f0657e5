package social

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// schema is an app's tables in the shapes the package documents, prefixed
// t_, with t_posts standing for the app's rows (a roar, a song). ID is the
// dialect's auto-numbered key.
const schema = `
CREATE TABLE t_posts (
    id        AUTOID,
    author_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    body      TEXT NOT NULL DEFAULT '',
    likes     BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE t_follows (
    follower_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    followee_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (follower_id, followee_id),
    CHECK (follower_id <> followee_id)
);
CREATE INDEX t_follows_followee ON t_follows (followee_id, follower_id);
CREATE TABLE t_blocks (
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    target_id  BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('block', 'mute')),
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, kind, target_id),
    CHECK (user_id <> target_id)
);
CREATE INDEX t_blocks_target ON t_blocks (target_id, kind);
CREATE TABLE t_friends (
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    friend_id  BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, friend_id),
    CHECK (user_id <> friend_id)
);
CREATE TABLE t_requests (
    from_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    to_id      BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (from_id, to_id),
    CHECK (from_id <> to_id)
);
CREATE INDEX t_requests_to ON t_requests (to_id, created_at);
CREATE TABLE t_notes (
    id         AUTOID,
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    actor_id   BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    post_id    BIGINT REFERENCES t_posts(id) ON DELETE CASCADE,
    seen       BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL
);
CREATE INDEX t_notes_user ON t_notes (user_id, id);
CREATE INDEX t_notes_unseen ON t_notes (user_id) WHERE seen = 0;
CREATE TABLE t_likes (
    post_id    BIGINT NOT NULL REFERENCES t_posts(id) ON DELETE CASCADE,
    user_id    BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (post_id, user_id)
);
CREATE INDEX t_likes_user ON t_likes (user_id, post_id);
CREATE TABLE t_reports (
    id          AUTOID,
    post_id     BIGINT NOT NULL REFERENCES t_posts(id) ON DELETE CASCADE,
    reporter_id BIGINT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    reason      TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    UNIQUE (post_id, reporter_id)
);
`

// fixture is a migrated database with the t_ tables, four users and a
// clock that moves a millisecond per reading.
type fixture struct {
	t                  *testing.T
	d                  *db.DB
	ann, bob, cat, dan int64
	clock              int64
}

func newFixture(t *testing.T, d *db.DB) *fixture {
	t.Helper()
	dbtest.Exec(t, d, schema)
	f := &fixture{t: t, d: d, clock: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()}
	ids := dbtest.Users(t, d, "ann", "bob", "cat", "dan")
	f.ann, f.bob, f.cat, f.dan = ids[0], ids[1], ids[2], ids[3]
	return f
}

// now is the fixture's clock.
func (f *fixture) now() time.Time {
	f.clock++
	return time.UnixMilli(f.clock).UTC()
}

// tx runs fn in a transaction and fails the test on an error.
func (f *fixture) tx(fn func(ctx context.Context, tx *db.Tx) error) {
	f.t.Helper()
	if err := f.try(fn); err != nil {
		f.t.Fatal(err)
	}
}

// try runs fn in a transaction and returns its error.
func (f *fixture) try(fn func(ctx context.Context, tx *db.Tx) error) error {
	ctx := context.Background()
	return f.d.WithTx(ctx, func(tx *db.Tx) error { return fn(ctx, tx) })
}

// each runs fn on SQLite and, with TUTTI_TEST_POSTGRES, PostgreSQL.
func each(t *testing.T, fn func(t *testing.T, f *fixture)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) { fn(t, newFixture(t, d)) }, auth.Migrations)
}

// post writes a post by author and returns its id.
func (f *fixture) post(author int64, body string) int64 {
	f.t.Helper()
	var id int64
	f.tx(func(ctx context.Context, tx *db.Tx) error {
		return db.Scan(tx.QueryRow(ctx, "INSERT INTO t_posts (author_id, body) VALUES (?, ?) RETURNING id", author, body), &id)
	})
	return id
}

// sorted is a set of ids in order, as text.
func sorted(set map[int64]bool) string { return fmt.Sprint(slices.Sorted(maps.Keys(set))) }
