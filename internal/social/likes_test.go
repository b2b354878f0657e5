package social

import (
	"context"
	"fmt"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
)

// TestLikes: a like counts once however often it is set, unliking lowers
// the count, Liked keeps to the posts asked about, and a user's account
// going takes their likes out of the counts; with the count kept on the
// post's row and without.
func TestLikes(t *testing.T) {
	for _, counter := range []*Counter{{Table: "t_posts", Column: "likes"}, nil} {
		t.Run(fmt.Sprintf("counter=%v", counter != nil), func(t *testing.T) {
			each(t, func(t *testing.T, f *fixture) {
				ctx := context.Background()
				l := NewLikes(LikesConfig{Table: "t_likes", Subject: "post_id", Counter: counter, Now: f.now})
				p1, p2, p3 := f.post(f.ann, "one"), f.post(f.ann, "two"), f.post(f.ann, "three")
				set := func(post, user int64, on, want bool) {
					t.Helper()
					var changed bool
					f.tx(func(ctx context.Context, tx *db.Tx) (err error) {
						changed, err = l.Set(ctx, tx, post, user, on)
						return err
					})
					if changed != want {
						t.Errorf("like %d by %d = %v: changed %v; want %v", post, user, on, changed, want)
					}
				}
				set(p1, f.bob, true, true)
				set(p1, f.bob, true, false)
				set(p1, f.cat, true, true)
				set(p3, f.bob, true, true)
				set(p2, f.cat, false, false)
				if n, err := l.Count(ctx, f.d, p1); err != nil || n != 2 {
					t.Errorf("likes of p1 = %d, %v; want 2", n, err)
				}
				if m, err := l.Counts(ctx, f.d, []int64{p1, p2, p3}); err != nil || fmt.Sprint(m) != fmt.Sprint(map[int64]int64{p1: 2, p2: 0, p3: 1}) {
					t.Errorf("Counts = %v, %v; want p1 2, p2 0, p3 1", m, err)
				}
				// p2 lies between p1 and p3, which bob liked: not among those asked.
				if m, err := l.Liked(ctx, f.d, f.bob, []int64{p1, p2}); err != nil || sorted(m) != fmt.Sprint([]int64{p1}) {
					t.Errorf("bob liked of p1, p2 = %v, %v; want p1", m, err)
				}
				if m, _ := l.Liked(ctx, f.d, 0, []int64{p1}); len(m) != 0 {
					t.Errorf("a visitor liked %v", m)
				}
				var label string
				var id int64
				if err := db.Scan(f.d.QueryRow(ctx, l.LikedSQL("like"), f.cat, p1, p3), &label, &id); err != nil || label != "like" || id != p1 {
					t.Errorf("LikedSQL row = %s %d, %v; want like %d", label, id, err, p1)
				}
				set(p1, f.cat, false, true)
				set(p1, f.cat, false, false)
				if n, _ := l.Count(ctx, f.d, p1); n != 1 {
					t.Errorf("likes of p1 after cat unliked = %d; want 1", n)
				}
				// Bob's account goes: his likes no longer count.
				f.tx(func(ctx context.Context, tx *db.Tx) error {
					if err := l.ForgetUser(ctx, tx, f.bob); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, "DELETE FROM users WHERE id = ?", f.bob)
					return err
				})
				if m, _ := l.Counts(ctx, f.d, []int64{p1, p3}); m[p1] != 0 || m[p3] != 0 {
					t.Errorf("counts after bob's account went = %v; want 0, 0", m)
				}
			})
		})
	}
}

// TestSpan: the range and set of a page's ids, in any order.
func TestSpan(t *testing.T) {
	lo, hi, want := Span([]int64{7, 3, 9, 3})
	if lo != 3 || hi != 9 || len(want) != 3 || !want[7] {
		t.Errorf("Span = %d, %d, %v; want 3, 9, {3 7 9}", lo, hi, want)
	}
	if lo, hi, want := Span(nil); lo != 0 || hi != 0 || len(want) != 0 {
		t.Errorf("Span(nil) = %d, %d, %v; want 0, 0, {}", lo, hi, want)
	}
}
