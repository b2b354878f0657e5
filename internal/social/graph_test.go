package social

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

func (f *fixture) graph() *Graph {
	return NewGraph(GraphTables{Follows: "t_follows", Blocks: "t_blocks", Friends: "t_friends", Requests: "t_requests"}, f.now)
}

// TestFollowsAndBlocks: follows are one way and idempotent; a block refuses
// a follow both ways and ends the follows between the two; a mute ends
// nothing; Relations and HiddenSQL say whom a viewer does not see.
func TestFollowsAndBlocks(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		g, ctx := f.graph(), context.Background()
		set := func(what string, fn func(ctx context.Context, tx *db.Tx) (bool, error), want bool) {
			t.Helper()
			var got bool
			f.tx(func(ctx context.Context, tx *db.Tx) (err error) { got, err = fn(ctx, tx); return err })
			if got != want {
				t.Errorf("%s: changed = %v; want %v", what, got, want)
			}
		}
		follow := func(a, b int64, on bool) func(ctx context.Context, tx *db.Tx) (bool, error) {
			return func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Follow(ctx, tx, a, b, on) }
		}
		set("ann follows bob", follow(f.ann, f.bob, true), true)
		set("ann follows bob again", follow(f.ann, f.bob, true), false)
		set("bob follows ann", follow(f.bob, f.ann, true), true)
		set("cat follows ann", follow(f.cat, f.ann, true), true)
		if got, err := g.Following(ctx, f.d, f.ann); err != nil || sorted(got) != fmt.Sprint([]int64{f.bob}) {
			t.Errorf("ann follows %v, %v; want only bob (%d): a follow is one way", got, err, f.bob)
		}
		if err := f.try(func(ctx context.Context, tx *db.Tx) error {
			_, err := g.Follow(ctx, tx, f.ann, f.ann, true)
			return err
		}); errs.KindOf(err) != errs.Invalid {
			t.Errorf("following oneself: %v; want invalid", err)
		}

		// Ann blocks bob: the follows both ways end, and neither may follow again.
		set("ann blocks bob", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Block(ctx, tx, f.ann, f.bob, true) }, true)
		set("ann blocks bob again", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Block(ctx, tx, f.ann, f.bob, true) }, false)
		for _, p := range [][2]int64{{f.ann, f.bob}, {f.bob, f.ann}} {
			if got, _ := g.Following(ctx, f.d, p[0]); got[p[1]] {
				t.Errorf("user %d still follows %d after the block", p[0], p[1])
			}
			if err := f.try(func(ctx context.Context, tx *db.Tx) error { _, err := g.Follow(ctx, tx, p[0], p[1], true); return err }); !errors.Is(err, ErrBlocked) {
				t.Errorf("user %d follows %d across a block: %v; want ErrBlocked", p[0], p[1], err)
			}
		}
		// Ann mutes cat: cat still follows ann, but ann does not see cat.
		set("ann mutes cat", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Mute(ctx, tx, f.ann, f.cat, true) }, true)
		if got, _ := g.Following(ctx, f.d, f.cat); !got[f.ann] {
			t.Error("a mute ended cat's follow of ann; it only hides")
		}
		for _, tc := range []struct {
			who                  int64
			hidden, blocks, mute string
		}{
			{f.ann, fmt.Sprint([]int64{f.bob, f.cat}), fmt.Sprint([]int64{f.bob}), fmt.Sprint([]int64{f.cat})},
			{f.bob, fmt.Sprint([]int64{f.ann}), "[]", "[]"}, // blocked by ann: she is hidden from him too
			{f.cat, "[]", "[]", "[]"}, // muted: cat is not told, and sees ann
		} {
			rel, err := g.Relations(ctx, f.d, tc.who)
			if err != nil || sorted(rel.Hidden) != tc.hidden || sorted(rel.Blocks) != tc.blocks || sorted(rel.Mutes) != tc.mute {
				t.Errorf("relations of %d = %+v, %v; want hidden %s, blocks %s, mutes %s", tc.who, rel, err, tc.hidden, tc.blocks, tc.mute)
			}
		}
		if (*Relations)(nil).Hides(f.bob) {
			t.Error("a visitor's (nil) relations hide someone")
		}

		// HiddenSQL keeps the same people out of an app's query.
		for _, who := range []int64{f.ann, f.bob, f.cat, f.dan} {
			f.post(who, "by user")
		}
		visible := func(viewer int64) string {
			rows, err := f.d.Query(ctx, "SELECT author_id FROM t_posts p WHERE "+g.HiddenSQL("p.author_id")+" ORDER BY author_id", HiddenArgs(viewer)...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			var ids []int64
			for rows.Next() {
				var id int64
				rows.Scan(&id)
				ids = append(ids, id)
			}
			return fmt.Sprint(ids)
		}
		if got, want := visible(f.ann), fmt.Sprint([]int64{f.ann, f.dan}); got != want {
			t.Errorf("ann's query shows the posts of %s; want %s", got, want)
		}
		if got, want := visible(f.bob), fmt.Sprint([]int64{f.bob, f.cat, f.dan}); got != want {
			t.Errorf("bob's query shows the posts of %s; want %s", got, want)
		}

		// Undone, the block lets them follow again (nothing came back by itself).
		set("ann unblocks bob", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Block(ctx, tx, f.ann, f.bob, false) }, true)
		set("bob follows ann after the unblock", follow(f.bob, f.ann, true), true)
		set("ann unmutes cat", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Mute(ctx, tx, f.ann, f.cat, false) }, true)
		set("ann unmutes cat again", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Mute(ctx, tx, f.ann, f.cat, false) }, false)
	})
}

// TestStanding: StandingCols in an app's query of a user say what a profile
// shows, for a viewer and for a visitor.
func TestStanding(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		g, ctx := f.graph(), context.Background()
		f.tx(func(ctx context.Context, tx *db.Tx) error {
			for _, step := range []func() error{
				func() error { _, err := g.Follow(ctx, tx, f.ann, f.bob, true); return err },
				func() error { _, err := g.Follow(ctx, tx, f.cat, f.bob, true); return err },
				func() error { _, err := g.Follow(ctx, tx, f.bob, f.ann, true); return err },
				func() error { _, err := g.Mute(ctx, tx, f.ann, f.bob, true); return err },
				func() error { _, err := g.Block(ctx, tx, f.bob, f.dan, true); return err },
				func() error { _, _, err := g.Request(ctx, tx, f.bob, f.ann); return err },
				func() error { _, _, err := g.Request(ctx, tx, f.cat, f.bob); return err },
				func() error { _, err := g.Accept(ctx, tx, f.bob, f.cat); return err },
			} {
				if err := step(); err != nil {
					return err
				}
			}
			return nil
		})
		query := "SELECT u.username" + g.StandingCols("u.id") + " FROM users u WHERE u.id = ?"
		standing := func(viewer, user int64) Standing {
			t.Helper()
			var st Standing
			var name string
			if err := db.Scan(f.d.QueryRow(ctx, query, append(g.StandingArgs(viewer), user)...), append([]any{&name}, st.Dest(g)...)...); err != nil {
				t.Fatal(err)
			}
			return st
		}
		want := Standing{Followers: 2, Following: 1, FriendCount: 1, Follows: true, FollowsMe: true, Muted: true, Asking: true}
		if got := standing(f.ann, f.bob); got != want {
			t.Errorf("bob as ann sees him = %+v; want %+v", got, want)
		}
		if got, want := standing(f.dan, f.bob), (Standing{Followers: 2, Following: 1, FriendCount: 1, BlocksMe: true}); got != want {
			t.Errorf("bob as dan sees him = %+v; want %+v", got, want)
		}
		if got, want := standing(f.cat, f.bob), (Standing{Followers: 2, Following: 1, FriendCount: 1, Follows: true, Friends: true}); got != want {
			t.Errorf("bob as cat sees him = %+v; want %+v", got, want)
		}
		if got, want := standing(0, f.bob), (Standing{Followers: 2, Following: 1, FriendCount: 1}); got != want {
			t.Errorf("bob as a visitor sees him = %+v; want %+v", got, want)
		}
		// A graph of follows and blocks only (roar's) has those columns only.
		roarish := NewGraph(GraphTables{Follows: "t_follows", Blocks: "t_blocks"}, f.now)
		var st Standing
		var name string
		q := "SELECT u.username" + roarish.StandingCols("u.id") + " FROM users u WHERE u.id = ?"
		if err := db.Scan(f.d.QueryRow(ctx, q, append(roarish.StandingArgs(f.ann), f.bob)...), append([]any{&name}, st.Dest(roarish)...)...); err != nil {
			t.Fatal(err)
		}
		if want := (Standing{Followers: 2, Following: 1, Follows: true, FollowsMe: true, Muted: true}); st != want {
			t.Errorf("bob as ann sees him, follows and blocks only = %+v; want %+v", st, want)
		}
	})
}
