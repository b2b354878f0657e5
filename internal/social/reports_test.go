package social

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// TestReports: a user reports a post once; the moderators see the most
// reported first with the first reason and reporter; dismissing closes a
// post's reports and removing the post takes them along.
func TestReports(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		r := NewReports(ReportsConfig{Table: "t_reports", Subject: "post_id", Empty: "Say what is wrong with it.", Now: f.now})
		p1, p2, p3 := f.post(f.ann, "one"), f.post(f.ann, "two"), f.post(f.ann, "three")
		file := func(post, user int64, reason string, want bool) {
			t.Helper()
			var filed bool
			f.tx(func(ctx context.Context, tx *db.Tx) (err error) {
				filed, err = r.File(ctx, tx, post, user, reason)
				return err
			})
			if filed != want {
				t.Errorf("report of %d by %d: filed %v; want %v", post, user, filed, want)
			}
		}
		file(p1, f.bob, "spam", true)
		file(p2, f.bob, "rude", true)
		file(p2, f.cat, "very rude", true)
		file(p2, f.cat, "still rude", false) // once per user
		file(p3, f.dan, "off topic", true)
		// The first report's reason and reporter, from one row: not the
		// smallest name and reason of the post's reports.
		p4 := f.post(f.ann, "four")
		file(p4, f.dan, "wrong date", true)
		file(p4, f.bob, "ads", true)
		open := func() string {
			t.Helper()
			list, err := r.Open(ctx, f.d, 10)
			if err != nil {
				t.Fatal(err)
			}
			var s []string
			for _, rp := range list {
				s = append(s, fmt.Sprintf("%d:%d:%s:%s", rp.Subject, rp.Count, rp.Reporter, rp.Reason))
			}
			return strings.Join(s, " ")
		}
		if got, want := open(), fmt.Sprintf("%d:2:bob:rude %d:2:dan:wrong date %d:1:bob:spam %d:1:dan:off topic", p2, p4, p1, p3); got != want {
			t.Errorf("open reports = %q; want %q", got, want)
		}
		f.tx(func(ctx context.Context, tx *db.Tx) error { return r.Dismiss(ctx, tx, p2) })
		f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := tx.Exec(ctx, "DELETE FROM t_posts WHERE id IN (?, ?)", p3, p4)
			return err
		})
		if got, want := open(), fmt.Sprintf("%d:1:bob:spam", p1); got != want {
			t.Errorf("open reports after a dismissal and a removal = %q; want %q", got, want)
		}

		if got, err := r.Clean("  it is spam \n"); err != nil || got != "it is spam" {
			t.Errorf("Clean = %q, %v; want the reason trimmed", got, err)
		}
		if _, err := r.Clean(" "); errs.FieldsOf(err)["reason"] != "Say what is wrong with it." {
			t.Errorf("Clean(blank) = %v; want the app's message for the field reason", err)
		}
		if _, err := r.Clean(strings.Repeat("x", 1001)); errs.KindOf(err) != errs.Invalid {
			t.Errorf("Clean(1,001 characters) = %v; want invalid", err)
		}
	})
}
