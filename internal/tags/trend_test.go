package tags

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// clock is a test's settable time.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newClock() *clock { return &clock{time.Date(2030, 5, 1, 12, 30, 0, 0, time.UTC)} }

func show(top []Trend) string {
	var s []string
	for _, tr := range top {
		s = append(s, fmt.Sprintf("%s:%d", tr.Tag, tr.Uses))
	}
	return strings.Join(s, " ")
}

// TestTrendingDecays: recent uses weigh more than old ones (a use six
// buckets old weighs half), uses past the window do not count, a removed
// post's uses are taken back, and Top is one query.
func TestTrendingDecays(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB) {
		ctx, c := context.Background(), newClock()
		tr := NewTrending(TrendConfig{Table: "t_uses", Now: c.now})
		use := func(ago time.Duration, n int, tags ...string) {
			write(t, d, func(ctx context.Context, tx *db.Tx) error {
				for range n {
					if err := tr.Record(ctx, tx, tags, c.t.Add(-ago)); err != nil {
						return err
					}
				}
				return nil
			})
		}
		use(49*time.Hour, 9, "ancient") // past the 48 buckets
		use(12*time.Hour, 4, "old")     // 4 x 1/4 = 1
		use(6*time.Hour, 3, "mid")      // 3 x 1/2 = 1.5
		use(0, 2, "new")                // 2
		use(0, 1, "gone", "new")
		q0 := d.Queries()
		top, err := tr.Top(ctx, d, 10)
		if n := d.Queries() - q0; err != nil || n != 1 {
			t.Fatalf("Top: %v, %d statements; want one", err, n)
		}
		if got, want := show(top), "new:3 mid:3 gone:1 old:4"; got != want {
			t.Errorf("top = %q; want %q (recent first, ancient left out)", got, want)
		}
		if top[0].Score != 3 || top[3].Score != 1 {
			t.Errorf("scores of new and old = %v, %v; want 3 and 1", top[0].Score, top[3].Score)
		}
		write(t, d, func(ctx context.Context, tx *db.Tx) error { return tr.Forget(ctx, tx, []string{"gone", "new"}, c.t) })
		write(t, d, func(ctx context.Context, tx *db.Tx) error { return tr.Forget(ctx, tx, []string{"gone"}, c.t) })
		if top, _ := tr.Top(ctx, d, 2); show(top) != "new:2 mid:3" {
			t.Errorf("top 2 after a post went = %q; want new:2 mid:3 (gone has no use left)", show(top))
		}
		// Time alone decays every tag alike: the order holds until a
		// bucket leaves the window (old's, 36 hours on: 48 old).
		for _, tc := range []struct {
			later time.Duration
			want  string
		}{{13 * time.Hour, "new:2 mid:3 old:4"}, {35 * time.Hour, "new:2 mid:3 old:4"}, {36 * time.Hour, "new:2 mid:3"}} {
			c.t = c.t.Add(tc.later - c.t.Sub(newClock().t))
			if top, _ := tr.Top(ctx, d, 10); show(top) != tc.want {
				t.Errorf("top %v later = %q; want %q", tc.later, show(top), tc.want)
			}
		}
	})
}

// TestTrendingBounded: however long the site runs, the table keeps about a
// window of buckets: each new bucket's first write deletes what left it.
func TestTrendingBounded(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB) {
		ctx, c := context.Background(), newClock()
		tr := NewTrending(TrendConfig{Table: "t_uses", Bucket: time.Minute, Window: 10, Now: c.now})
		most := 0
		for i := range 100 {
			c.t = c.t.Add(time.Minute)
			write(t, d, func(ctx context.Context, tx *db.Tx) error {
				return tr.Record(ctx, tx, []string{"a", fmt.Sprint("t", i%3)}, c.t)
			})
			var n int
			if err := db.Scan(d.QueryRow(ctx, "SELECT count(*) FROM t_uses"), &n); err != nil {
				t.Fatal(err)
			}
			most = max(most, n)
		}
		if most > 20 {
			t.Errorf("the table held up to %d rows; want at most 20 (2 tags a bucket, 10 buckets)", most)
		}
		if top, _ := tr.Top(ctx, d, 1); show(top) != "a:10" {
			t.Errorf("top = %q; want a:10 (the window's ten buckets)", show(top))
		}
	})
}

// TestTallyAndBoard: a seed's tally loads what Record would have written;
// a board shows the top tags without a query, and again after a kick.
func TestTallyAndBoard(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB) {
		ctx, c := context.Background(), newClock()
		tr := NewTrending(TrendConfig{Table: "t_uses", Now: c.now})
		y := tr.Tally()
		y.Use([]string{"jazz", "blues"}, c.t.Add(-time.Hour))
		y.Use([]string{"jazz"}, c.t)
		y.Use([]string{"swing"}, c.t.Add(-48*time.Hour)) // out of the window
		if err := y.Save(ctx, d); err != nil {
			t.Fatal(err)
		}
		if top, _ := tr.Top(ctx, d, 5); show(top) != "jazz:2 blues:1" {
			t.Errorf("top after the tally = %q; want jazz:2 blues:1", show(top))
		}
		if err := y.Save(ctx, d); err != nil { // a second seed adds to the first
			t.Fatal(err)
		}
		b, err := NewBoard(ctx, tr, d, 5, time.Hour, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		q0 := d.Queries()
		if got := show(b.Top()); got != "jazz:4 blues:2" || d.Queries() != q0 {
			t.Errorf("board = %q after %d statements; want jazz:4 blues:2 and none", got, d.Queries()-q0)
		}
		write(t, d, func(ctx context.Context, tx *db.Tx) error {
			return tr.Record(ctx, tx, []string{"bebop", "bebop2", "bebop3"}, c.t)
		})
		write(t, d, func(ctx context.Context, tx *db.Tx) error { return tr.Record(ctx, tx, []string{"bebop"}, c.t) })
		b.Kick()
		deadline := time.Now().Add(5 * time.Second)
		for show(b.Top()) != "jazz:4 bebop:2 blues:2 bebop2:1 bebop3:1" {
			if time.Now().After(deadline) {
				t.Fatalf("board after a kick = %q; want bebop among them", show(b.Top()))
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}
