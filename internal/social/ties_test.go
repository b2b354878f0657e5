package social

import (
	"context"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// TestTies: one query tells how a viewer stands to each person of a list,
// friends, requests either way, blocks either way, and nothing for the
// people of the span that are not in the list.
func TestTies(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		g, ctx := f.graph(), context.Background()
		more := dbtest.Users(t, f.d, "eve", "fay")
		eve, fay := more[0], more[1]
		f.tx(func(ctx context.Context, tx *db.Tx) error {
			if _, _, err := g.Request(ctx, tx, f.ann, f.bob); err != nil { // ann and bob: friends
				return err
			}
			if _, err := g.Accept(ctx, tx, f.bob, f.ann); err != nil {
				return err
			}
			if _, _, err := g.Request(ctx, tx, f.ann, f.cat); err != nil { // ann asked cat
				return err
			}
			if _, _, err := g.Request(ctx, tx, f.dan, f.ann); err != nil { // dan asks ann
				return err
			}
			if _, err := g.Block(ctx, tx, eve, f.ann, true); err != nil { // eve blocks ann
				return err
			}
			_, _, err := g.Request(ctx, tx, f.bob, fay) // bob asked fay: nothing of ann's
			return err
		})
		got, err := g.Ties(ctx, f.d, f.ann, []int64{f.bob, f.cat, f.dan, eve, fay})
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64]Tie{f.bob: {Friend: Friends}, f.cat: {Friend: Asked}, f.dan: {Friend: Asking}, eve: {BlocksMe: true}}
		if len(got) != len(want) {
			t.Errorf("ties = %v; want %v", got, want)
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("tie of ann to %d = %+v; want %+v", id, got[id], w)
			}
		}
		// Kept to the list: cat is in the span of [bob, dan] but not asked for.
		got, err = g.Ties(ctx, f.d, f.ann, []int64{f.bob, f.dan})
		if err != nil || len(got) != 2 || got[f.cat] != (Tie{}) {
			t.Errorf("ties of ann to bob and dan = %v, %v; want those two only", got, err)
		}
		// Eve sees that she blocks ann; a visitor has no ties.
		if got, err := g.Ties(ctx, f.d, eve, []int64{f.ann}); err != nil || got[f.ann] != (Tie{Blocked: true}) {
			t.Errorf("tie of eve to ann = %v, %v; want blocked", got, err)
		}
		if got, err := g.Ties(ctx, f.d, 0, []int64{f.ann}); err != nil || len(got) != 0 {
			t.Errorf("a visitor's ties = %v, %v; want none", got, err)
		}
	})
}
