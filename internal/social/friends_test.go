package social

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// TestFriendships: a request, answered by accepting, declining or asking
// back, or withdrawn; friends both ways until one unfriends; a block ends
// the friendship and the requests and refuses new ones.
func TestFriendships(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		g, ctx := f.graph(), context.Background()
		state := func(a, b int64, want FriendState) {
			t.Helper()
			if got, err := g.FriendState(ctx, f.d, a, b); err != nil || got != want {
				t.Errorf("state of %d to %d = %v, %v; want %v", a, b, got, err, want)
			}
		}
		request := func(from, to int64, want FriendState, wantChanged bool) {
			t.Helper()
			var st FriendState
			var changed bool
			f.tx(func(ctx context.Context, tx *db.Tx) (err error) {
				st, changed, err = g.Request(ctx, tx, from, to)
				return err
			})
			if st != want || changed != wantChanged {
				t.Errorf("request %d -> %d = %v, changed %v; want %v, %v", from, to, st, changed, want, wantChanged)
			}
		}
		step := func(what string, fn func(ctx context.Context, tx *db.Tx) (bool, error), want bool) {
			t.Helper()
			var changed bool
			f.tx(func(ctx context.Context, tx *db.Tx) (err error) { changed, err = fn(ctx, tx); return err })
			if changed != want {
				t.Errorf("%s: changed = %v; want %v", what, changed, want)
			}
		}

		// Ann asks bob; bob accepts.
		request(f.ann, f.bob, Asked, true)
		request(f.ann, f.bob, Asked, false)
		state(f.ann, f.bob, Asked)
		state(f.bob, f.ann, Asking)
		step("bob accepts ann", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Accept(ctx, tx, f.bob, f.ann) }, true)
		step("bob accepts ann again", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Accept(ctx, tx, f.bob, f.ann) }, false)
		state(f.ann, f.bob, Friends)
		state(f.bob, f.ann, Friends)
		request(f.bob, f.ann, Friends, false)

		// Cat asks ann, who asks back: that accepts.
		request(f.cat, f.ann, Asked, true)
		request(f.ann, f.cat, Friends, true)
		if got, err := g.FriendIDs(ctx, f.d, f.ann); err != nil || sorted(got) != fmt.Sprint([]int64{f.bob, f.cat}) {
			t.Errorf("ann's friends = %v, %v; want bob and cat", got, err)
		}
		if got, _ := g.FriendIDs(ctx, f.d, f.cat); !got[f.ann] || len(got) != 1 {
			t.Errorf("cat's friends = %v; want ann: a friendship is both ways", got)
		}

		// Dan asks bob: bob declines; dan asks cat and withdraws it.
		request(f.dan, f.bob, Asked, true)
		step("bob declines dan", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Decline(ctx, tx, f.bob, f.dan) }, true)
		step("bob declines dan again", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Decline(ctx, tx, f.bob, f.dan) }, false)
		state(f.dan, f.bob, Strangers)
		if err := f.try(func(ctx context.Context, tx *db.Tx) error { _, err := g.Accept(ctx, tx, f.bob, f.dan); return err }); errs.KindOf(err) != errs.NotFound {
			t.Errorf("accepting a declined request: %v; want not found", err)
		}
		request(f.dan, f.cat, Asked, true)
		step("dan withdraws", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Cancel(ctx, tx, f.dan, f.cat) }, true)
		state(f.cat, f.dan, Strangers)
		if err := f.try(func(ctx context.Context, tx *db.Tx) error { _, _, err := g.Request(ctx, tx, f.dan, f.dan); return err }); errs.KindOf(err) != errs.Invalid {
			t.Errorf("befriending oneself: %v; want invalid", err)
		}

		// Bob unfriends ann: both ways.
		step("bob unfriends ann", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Unfriend(ctx, tx, f.bob, f.ann) }, true)
		step("bob unfriends ann again", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Unfriend(ctx, tx, f.bob, f.ann) }, false)
		state(f.ann, f.bob, Strangers)

		// Cat blocks ann: their friendship ends and no request passes either way.
		request(f.dan, f.cat, Asked, true)
		step("cat blocks ann", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Block(ctx, tx, f.cat, f.ann, true) }, true)
		state(f.ann, f.cat, Strangers)
		for _, p := range [][2]int64{{f.ann, f.cat}, {f.cat, f.ann}} {
			if err := f.try(func(ctx context.Context, tx *db.Tx) error { _, _, err := g.Request(ctx, tx, p[0], p[1]); return err }); !errors.Is(err, ErrBlocked) {
				t.Errorf("request %d -> %d across a block: %v; want ErrBlocked", p[0], p[1], err)
			}
		}
		step("cat blocks dan", func(ctx context.Context, tx *db.Tx) (bool, error) { return g.Block(ctx, tx, f.cat, f.dan, true) }, true)
		state(f.cat, f.dan, Strangers) // dan's request went with the block
	})
}

// TestFriendPages: the friends and the requests of a user come newest
// first, a page at a time by keyset, each with its person.
func TestFriendPages(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		g, ctx := f.graph(), context.Background()
		for _, who := range []int64{f.bob, f.cat, f.dan} {
			f.tx(func(ctx context.Context, tx *db.Tx) error { _, _, err := g.Request(ctx, tx, who, f.ann); return err })
		}
		in, next, err := g.Requests(ctx, f.d, f.ann, true, db.Cursor{}, 2)
		if err != nil || len(in) != 2 || in[0].ID != f.dan || in[1].ID != f.cat || in[0].Username != "dan" || next.IsZero() {
			t.Fatalf("ann's requests, page 1 = %+v, next %v, %v; want dan, cat and a next page", in, next, err)
		}
		in, next, err = g.Requests(ctx, f.d, f.ann, true, db.ParseCursor(next.String()), 2)
		if err != nil || len(in) != 1 || in[0].ID != f.bob || !next.IsZero() {
			t.Fatalf("ann's requests, page 2 = %+v, next %v, %v; want bob and no next page", in, next, err)
		}
		if out, _, err := g.Requests(ctx, f.d, f.bob, false, db.Cursor{}, 10); err != nil || len(out) != 1 || out[0].ID != f.ann {
			t.Errorf("bob's sent requests = %+v, %v; want ann", out, err)
		}
		for _, who := range []int64{f.bob, f.cat, f.dan} {
			f.tx(func(ctx context.Context, tx *db.Tx) error { _, err := g.Accept(ctx, tx, f.ann, who); return err })
		}
		var all []int64
		for c, pages := (db.Cursor{}), 0; pages < 5; pages++ {
			list, next, err := g.Friends(ctx, f.d, f.ann, c, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range list {
				all = append(all, l.ID)
			}
			if c = next; c.IsZero() {
				break
			}
		}
		if got, want := fmt.Sprint(all), fmt.Sprint([]int64{f.dan, f.cat, f.bob}); got != want {
			t.Errorf("ann's friends, a page at a time = %s; want %s (newest first)", got, want)
		}
		if in, _, _ := g.Requests(ctx, f.d, f.ann, true, db.Cursor{}, 10); len(in) != 0 {
			t.Errorf("requests left after accepting them all: %+v", in)
		}
	})
}
