package roar

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
)

// storeFixture is a migrated database with three users and roar's store.
type storeFixture struct {
	t             *testing.T
	d             *db.DB
	s             *Store
	ann, bob, cat int64
}

func newStoreFixture(t *testing.T, d *db.DB) *storeFixture {
	t.Helper()
	f := &storeFixture{t: t, d: d, s: NewStore(d, time.Now)}
	for _, p := range []struct {
		name string
		id   *int64
	}{{"ann", &f.ann}, {"bob", &f.bob}, {"cat", &f.cat}} {
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			return db.Scan(tx.QueryRow(ctx, `INSERT INTO users (username, username_key, email, email_key, password_hash, created_at, updated_at)
				VALUES (?, ?, ?, ?, 'x', 0, 0) RETURNING id`, p.name, p.name, p.name+"@example.com", p.name+"@example.com"), p.id)
		}); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// tx runs fn in a transaction, as the app's batcher does.
func (f *storeFixture) tx(fn func(ctx context.Context, tx *db.Tx) error) error {
	ctx := context.Background()
	return f.d.WithTx(ctx, func(tx *db.Tx) error { return fn(ctx, tx) })
}

func (f *storeFixture) post(p Post) int64 {
	f.t.Helper()
	var id int64
	if err := f.tx(func(ctx context.Context, tx *db.Tx) (err error) { id, err = f.s.insert(ctx, tx, p, nil); return err }); err != nil {
		f.t.Fatalf("insert %+v: %v", p, err)
	}
	return id
}

func (f *storeFixture) roar(id int64) *Roar {
	f.t.Helper()
	r, err := f.s.Roar(context.Background(), id)
	if err != nil {
		f.t.Fatalf("roar %d: %v", id, err)
	}
	return r
}

func (f *storeFixture) timeline(q Query) []int64 {
	f.t.Helper()
	if q.Limit == 0 {
		q.Limit = 200
	}
	rs, err := f.s.Timeline(context.Background(), q)
	if err != nil {
		f.t.Fatalf("timeline %+v: %v", q, err)
	}
	ids := make([]int64, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

func wantIDs(t *testing.T, what string, got []int64, want ...int64) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: got %v; want %v", what, got, want)
	}
}

// TestStoreTimelinesAndCounts: roar's store on SQLite and PostgreSQL:
// replies, reposts and likes keep their counts, every timeline selects and
// orders what it should, pages by keyset, and the version rises.
func TestStoreTimelinesAndCounts(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newStoreFixture(t, d)
		ctx := context.Background()
		v0, err := f.s.Version(ctx)
		if err != nil {
			t.Fatal(err)
		}
		a1 := f.post(Post{Author: f.ann, Body: "first #Jazz from ann"})
		b1 := f.post(Post{Author: f.bob, Body: "@ann agreed", ReplyTo: a1})
		c1 := f.post(Post{Author: f.cat, Body: "cat here #jazz"})
		bRepost := f.post(Post{Author: f.bob, RepostOf: c1})
		a2 := f.post(Post{Author: f.ann, Body: "second from ann", ReplyTo: a1})

		if r := f.roar(a1); r.Replies != 2 || r.Author.Username != "ann" || r.Body != "first #Jazz from ann" {
			t.Errorf("a1 = %+v; want 2 replies by ann", r)
		}
		if r := f.roar(c1); r.Reposts != 1 {
			t.Errorf("c1 reposts = %d; want 1", r.Reposts)
		}
		if r := f.roar(bRepost); r.RepostOf == nil || r.RepostOf.ID != c1 {
			t.Errorf("the repost %+v does not carry its original %d", r, c1)
		}
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := f.s.insert(ctx, tx, Post{Author: f.bob, RepostOf: c1}, nil)
			return err
		}); errs.KindOf(err) != errs.Conflict {
			t.Errorf("reposting twice: %v; want a conflict", err)
		}

		wantIDs(t, "public", f.timeline(Query{}), a2, bRepost, c1, b1, a1)
		wantIDs(t, "page after c1", f.timeline(Query{Before: c1}), b1, a1)
		wantIDs(t, "limit 2", f.timeline(Query{Limit: 2}), a2, bRepost)
		wantIDs(t, "since b1 (oldest first)", f.timeline(Query{Since: b1}), c1, bRepost, a2)
		wantIDs(t, "ann's", f.timeline(Query{Author: f.ann}), a2, a1)
		wantIDs(t, "#jazz (any case)", f.timeline(Query{Tag: "jazz"}), c1, a1)
		wantIDs(t, "thread of a1 (oldest first)", f.timeline(Query{Thread: a1}), b1, a2)
		wantIDs(t, "cat's home before following", f.timeline(Query{Home: f.cat}), c1)
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			return f.s.relate(ctx, tx, f.cat, f.bob, "follow", true, nil)
		}); err != nil {
			t.Fatal(err)
		}
		wantIDs(t, "cat's home following bob", f.timeline(Query{Home: f.cat}), bRepost, c1, b1)

		// Likes: idempotent, counted, and seen by Liked; reposts by Reposted.
		for _, on := range []bool{true, true} {
			if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
				_, err := f.s.like(ctx, tx, a1, f.bob, on, nil)
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		if r := f.roar(a1); r.Likes != 1 {
			t.Errorf("a1 likes after liking twice = %d; want 1", r.Likes)
		}
		if m, err := f.s.Marks(ctx, f.bob, []int64{a1, b1, c1}); err != nil || len(m.Liked) != 1 || !m.Liked[a1] {
			t.Errorf("Marks(bob).Liked = %v, %v; want only %d", m, err, a1)
		}
		if rep, err := f.s.Reposted(ctx, f.bob, []int64{a1, c1}); err != nil || !rep[c1] || rep[a1] {
			t.Errorf("Reposted = %v, %v; want only %d", rep, err, c1)
		}
		// Marks keeps to the page: c1, reposted by bob, is in the range of
		// a1..a2 but not among them.
		if m, err := f.s.Marks(ctx, f.bob, []int64{a1, a2}); err != nil || len(m.Reposted) != 0 {
			t.Errorf("Marks(bob, a1, a2).Reposted = %v, %v; want none", m, err)
		}
		if m, err := f.s.Marks(ctx, f.bob, []int64{c1}); err != nil || len(m.Reposted) != 1 || !m.Reposted[c1] {
			t.Errorf("Marks(bob, c1).Reposted = %v, %v; want %d", m, err, c1)
		}
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := f.s.like(ctx, tx, a1, f.bob, false, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if r := f.roar(a1); r.Likes != 0 {
			t.Errorf("a1 likes after unliking = %d; want 0", r.Likes)
		}

		// Ann was replied to, mentioned (in the same reply: one notice) and liked.
		if n, err := f.s.Unseen(ctx, f.ann); err != nil || n != 2 {
			t.Errorf("ann's unseen notifications = %d, %v; want 2 (reply, like)", n, err)
		}
		if m, err := f.s.Marks(ctx, f.ann, nil); err != nil || m.Unseen != 2 || len(m.Liked)+len(m.Reposted) != 0 {
			t.Errorf("Marks(ann, no roars) = %+v, %v; want 2 unseen, no likes or reposts", m, err)
		}
		// One query for several users says what Unseen says of each.
		nobody := int64(1 << 40)
		m, err := f.s.UnseenOf(ctx, []int64{f.ann, f.bob, nobody})
		bobs, _ := f.s.Unseen(ctx, f.bob)
		if err != nil || len(m) != 3 || m[f.ann] != 2 || m[f.bob] != bobs || m[nobody] != 0 {
			t.Errorf("UnseenOf(ann, bob, nobody) = %v, %v; want ann 2, bob %d, nobody 0", m, err, bobs)
		}
		if v, err := f.s.Version(ctx); err != nil || v <= v0 {
			t.Errorf("version %d after writes; want above %d", v, v0)
		}
	}, auth.Migrations, Migrations)
}

// TestStoreBlocksRemovalsAndForgetting: a block refuses replies and likes
// both ways, deleting a roar takes its reposts along and lowers the
// counts, and a deleted account's likes and replies stop being counted.
func TestStoreBlocksRemovalsAndForgetting(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newStoreFixture(t, d)
		a1 := f.post(Post{Author: f.ann, Body: "ann speaks"})
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			return f.s.relate(ctx, tx, f.ann, f.cat, "block", true, nil)
		}); err != nil {
			t.Fatal(err)
		}
		err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := f.s.insert(ctx, tx, Post{Author: f.cat, Body: "hi", ReplyTo: a1}, nil)
			return err
		})
		if errs.KindOf(err) != errs.Forbidden {
			t.Errorf("a blocked user's reply: %v; want forbidden", err)
		}
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := f.s.like(ctx, tx, a1, f.cat, true, nil)
			return err
		}); errs.KindOf(err) != errs.Forbidden {
			t.Errorf("a blocked user's like: %v; want forbidden", err)
		}

		// Marks carries the relations as Relations has them, both ways.
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			return f.s.relate(ctx, tx, f.ann, f.bob, "mute", true, nil)
		}); err != nil {
			t.Fatal(err)
		}
		for _, who := range []int64{f.ann, f.cat} {
			m, err := f.s.Marks(context.Background(), who, []int64{a1})
			rel, rerr := f.s.Relations(context.Background(), who)
			if err != nil || rerr != nil || !reflect.DeepEqual(m.Rel, rel) {
				t.Errorf("user %d: Marks.Rel = %+v, %v; Relations = %+v, %v", who, m.Rel, err, rel, rerr)
			}
		}
		if m, _ := f.s.Marks(context.Background(), f.ann, nil); !m.Rel.Blocks[f.cat] || !m.Rel.Mutes[f.bob] || len(m.Rel.Hidden) != 2 {
			t.Errorf("ann's relations = %+v; want cat blocked, bob muted, both hidden", m.Rel)
		}
		if m, _ := f.s.Marks(context.Background(), f.cat, nil); !m.Rel.Hidden[f.ann] || len(m.Rel.Blocks)+len(m.Rel.Mutes) != 0 {
			t.Errorf("cat's relations = %+v; want ann hidden (she blocks cat), no blocks or mutes", m.Rel)
		}

		// Removal: only the author; the reposts go with the roar.
		b1 := f.post(Post{Author: f.bob, Body: "bob's", ReplyTo: a1})
		repost := f.post(Post{Author: f.bob, RepostOf: a1})
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := f.s.remove(ctx, tx, a1, f.bob, false)
			return err
		}); errs.KindOf(err) != errs.Forbidden {
			t.Errorf("removing another's roar: %v; want forbidden", err)
		}
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := f.s.remove(ctx, tx, b1, f.bob, false)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if r := f.roar(a1); r.Replies != 0 {
			t.Errorf("a1 replies after its reply was deleted = %d; want 0", r.Replies)
		}

		// Forgetting bob (account deletion): his like and repost stop counting.
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := f.s.like(ctx, tx, a1, f.bob, true, nil)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			if err := f.s.forgetUser(ctx, tx, f.bob); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "DELETE FROM users WHERE id = ?", f.bob)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if r := f.roar(a1); r.Likes != 0 || r.Reposts != 0 {
			t.Errorf("a1 after bob's account went: %d likes, %d reposts; want 0, 0", r.Likes, r.Reposts)
		}
		if _, err := f.s.Roar(context.Background(), repost); errs.KindOf(err) != errs.NotFound {
			t.Errorf("bob's repost after his account went: %v; want not found", err)
		}
		if err := f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := f.s.remove(ctx, tx, a1, f.ann, false)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.s.Roar(context.Background(), a1); errs.KindOf(err) != errs.NotFound {
			t.Errorf("a removed roar: %v; want not found", err)
		}
	}, auth.Migrations, Migrations)
}
