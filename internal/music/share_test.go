package music

import (
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// TestShareLinks: only the author of a friends-only post makes its link;
// the link opens that post and no other, for anyone; revoking it makes it
// not found at once; a new link is a new token; a deleted post takes its
// link with it.
func TestShareLinks(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		priv := w.share(w.ann, "https://example.com/secret", "just friends", Friends)
		other := w.share(w.ann, "https://example.com/other", "other secret", Friends)
		pub := w.share(w.ann, "https://example.com/pub", "for all", Public)
		_, err := w.s.Comment(w.ctx, w.bob, priv, "whispered")
		w.must(err)
		kind := func(err error) errs.Kind { return errs.KindOf(err) }
		if _, err := w.s.MakeShareLink(w.ctx, w.cat, priv); kind(err) != errs.NotFound {
			t.Errorf("a stranger makes a link: %v; want not found", err)
		}
		if _, err := w.s.MakeShareLink(w.ctx, w.bob, priv); kind(err) != errs.Forbidden {
			t.Errorf("a friend makes a link: %v; want forbidden", err)
		}
		if _, err := w.s.MakeShareLink(w.ctx, w.ann, pub); kind(err) != errs.Invalid {
			t.Errorf("a link to a public post: %v; want invalid", err)
		}
		if _, err := w.s.MakeShareLink(w.ctx, nil, priv); kind(err) != errs.Unauthorized {
			t.Errorf("a visitor makes a link: %v; want unauthorized", err)
		}
		token, err := w.s.MakeShareLink(w.ctx, w.ann, priv)
		w.must(err)
		if !validToken(token) {
			t.Fatalf("token %q: want 43 base64url characters", token)
		}
		if again, err := w.s.MakeShareLink(w.ctx, w.ann, priv); err != nil || again != token {
			t.Errorf("making it again: %q, %v; want the same link", again, err)
		}
		if got, err := w.s.ShareLink(w.ctx, w.ann, priv); err != nil || got != token {
			t.Errorf("ann's link of her post: %q, %v; want it", got, err)
		}
		if got, err := w.s.ShareLink(w.ctx, w.bob, priv); err != nil || got != "" {
			t.Errorf("bob reads ann's link: %q, %v; want none", got, err)
		}
		th, err := w.s.Shared(w.ctx, token)
		w.must(err)
		if th.Post.ID != priv || len(th.Comments) != 1 || th.Comments[0].Body != "whispered" {
			t.Errorf("the link opens post %d with %d comments; want %d with bob's", th.Post.ID, len(th.Comments), priv)
		}
		for id, want := range map[int64]bool{priv: true, other: false, pub: false} {
			if ok, err := w.s.CanSeeVia(w.ctx, token, id); err != nil || ok != want {
				t.Errorf("CanSeeVia(link, %d) = %v, %v; want %v", id, ok, err, want)
			}
		}
		madeUp := strings.Repeat("A", tokenLen)
		for _, bad := range []string{"", "x", madeUp, token[:tokenLen-1] + "!", token + "A"} {
			if _, err := w.s.Shared(w.ctx, bad); kind(err) != errs.NotFound {
				t.Errorf("Shared(%q): %v; want not found", bad, err)
			}
		}
		// Revoking: its author only; then not found, and a new link differs.
		if err := w.s.RevokeShareLink(w.ctx, w.bob, priv); kind(err) != errs.Forbidden {
			t.Errorf("bob revokes ann's link: %v; want forbidden", err)
		}
		w.must(w.s.RevokeShareLink(w.ctx, w.ann, priv))
		if _, err := w.s.Shared(w.ctx, token); kind(err) != errs.NotFound {
			t.Errorf("a revoked link: %v; want not found", err)
		}
		if ok, err := w.s.CanSeeVia(w.ctx, token, priv); ok || err != nil {
			t.Errorf("CanSeeVia(revoked) = %v, %v; want false", ok, err)
		}
		fresh, err := w.s.MakeShareLink(w.ctx, w.ann, priv)
		w.must(err)
		if fresh == token {
			t.Error("a new link after revoking is the old one")
		}
		// Deleting the post takes its link.
		w.must(w.s.Delete(w.ctx, w.ann, priv))
		if _, err := w.s.Shared(w.ctx, fresh); kind(err) != errs.NotFound {
			t.Errorf("the link of a deleted post: %v; want not found", err)
		}
		var n int
		w.must(db.Scan(w.d.QueryRow(w.ctx, "SELECT count(*) FROM music_share_links"), &n))
		if n != 0 {
			t.Errorf("%d links left after the post was deleted; want 0", n)
		}
	})
}
