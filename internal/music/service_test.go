package music

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
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/search"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/version"
)

// world is music's Service alone, on one database: ann and bob are
// friends, cat is a stranger to both, mod a moderator.
type world struct {
	t                  *testing.T
	ctx                context.Context
	d                  *db.DB
	s                  *Service
	ann, bob, cat, mod *auth.User
}

func newWorld(t *testing.T, d *db.DB) *world {
	t.Helper()
	ids := dbtest.Users(t, d, "ann", "bob", "cat", "mod")
	w := &world{t: t, ctx: context.Background(), d: d,
		s:   NewService(NewStore(d, time.Now), d.Batch(), version.NewMemory(), nil),
		ann: &auth.User{ID: ids[0], Username: "ann"}, bob: &auth.User{ID: ids[1], Username: "bob"},
		cat: &auth.User{ID: ids[2], Username: "cat"}, mod: &auth.User{ID: ids[3], Username: "mod", Roles: []auth.Role{{App: "music", Name: RoleModerator}}}}
	w.must(w.s.Relate(w.ctx, w.ann, "bob", "befriend"))
	w.must(w.s.Relate(w.ctx, w.bob, "ann", "accept"))
	return w
}

func (w *world) must(err error) {
	w.t.Helper()
	if err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) share(u *auth.User, url, comment, vis string) int64 {
	w.t.Helper()
	id, err := w.s.Share(w.ctx, u, Draft{URL: url, Comment: comment, Visibility: vis})
	w.must(err)
	return id
}

func ids(f *Feed) []int64 {
	var out []int64
	for _, p := range f.Posts {
		out = append(out, p.ID)
	}
	return out
}

func eachDB(t *testing.T, fn func(t *testing.T, w *world)) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) { fn(t, newWorld(t, d)) }, auth.Migrations, Migrations)
}

func TestShareRefusesBadInputAndWritesNothing(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		for _, c := range []struct {
			d     Draft
			field string
		}{
			{Draft{URL: "javascript:alert(1)"}, "url"},
			{Draft{URL: ""}, "url"},
			{Draft{URL: "https://example.com", Visibility: "secret"}, "visibility"},
			{Draft{URL: "https://example.com", Comment: string(make([]byte, 1001))}, "comment"},
		} {
			_, err := w.s.Share(w.ctx, w.ann, c.d)
			if errs.KindOf(err) != errs.Invalid || errs.FieldsOf(err)[c.field] == "" {
				t.Errorf("Share(%+v): %v; want Invalid at %s", c.d, err, c.field)
			}
		}
		if _, err := w.s.Share(w.ctx, nil, Draft{URL: "https://example.com"}); errs.KindOf(err) != errs.Unauthorized {
			t.Errorf("Share by nobody: %v; want Unauthorized", err)
		}
		var n int64
		w.must(w.d.QueryRow(w.ctx, "SELECT count(*) FROM music_posts").Scan(&n))
		if n != 0 {
			t.Fatalf("%d posts stored; want none", n)
		}
	})
}

// TestPrivacy: a friends-only post, its comments and counts reach its
// author and their friends only, by every read of the Service.
func TestPrivacy(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		pub := w.share(w.ann, "https://youtu.be/dQw4w9WgXcQ", "open to all #jazz", Public)
		priv := w.share(w.ann, "https://soundcloud.com/ann/demo", "for friends #jazz #secretjam", Friends)
		_, err := w.s.Comment(w.ctx, w.bob, priv, "lovely")
		w.must(err)
		_, err = w.s.Like(w.ctx, w.bob, priv, true)
		w.must(err)

		for _, c := range []struct {
			who  *auth.User
			name string
			sees bool
		}{{w.ann, "author", true}, {w.bob, "friend", true}, {w.cat, "stranger", false}, {nil, "visitor", false}} {
			want := []int64{pub}
			if c.sees {
				want = []int64{priv, pub}
			}
			f, err := w.s.Everyone(w.ctx, c.who, 0)
			w.must(err)
			if c.sees { // everyone's page is the public posts, and the viewer's friends'
				if got := ids(f); !slices.Equal(got, want) {
					t.Errorf("%s: everyone = %v; want %v", c.name, got, want)
				}
			} else if got := ids(f); !slices.Equal(got, []int64{pub}) {
				t.Errorf("%s: everyone = %v; want only the public post %d", c.name, got, pub)
			}
			f, err = w.s.Tagged(w.ctx, c.who, "jazz", 0)
			w.must(err)
			if got := ids(f); !slices.Equal(got, want) {
				t.Errorf("%s: #jazz = %v; want %v", c.name, got, want)
			}
			pe, err := w.s.Person(w.ctx, c.who, "ann", 0)
			w.must(err)
			if got := ids(pe.Feed); !slices.Equal(got, want) {
				t.Errorf("%s: ann's page = %v; want %v", c.name, got, want)
			}
			cs, _, err := w.s.Comments(w.ctx, c.who, priv, 0)
			if c.sees && (err != nil || len(cs) != 1) {
				t.Errorf("%s: comments of the friends-only post: %d, %v; want 1", c.name, len(cs), err)
			} else if !c.sees && errs.KindOf(err) != errs.NotFound {
				t.Errorf("%s: comments of a friends-only post: %v; want not found", c.name, err)
			}
			th, err := w.s.Thread(w.ctx, c.who, priv, 0)
			if c.sees {
				w.must(err)
				if len(th.Comments) != 1 || th.Post.Likes != 1 || th.Post.Comments != 1 {
					t.Errorf("%s: thread: %d comments, %d likes; want 1 and 1", c.name, len(th.Comments), th.Post.Likes)
				}
			} else if errs.KindOf(err) != errs.NotFound {
				t.Errorf("%s: thread of a friends-only post: %v; want not found", c.name, err)
			}
		}
		// A stranger cannot comment, like, repost or report it either.
		if _, err := w.s.Comment(w.ctx, w.cat, priv, "hi"); errs.KindOf(err) != errs.NotFound {
			t.Errorf("stranger's comment: %v; want not found", err)
		}
		if _, err := w.s.Like(w.ctx, w.cat, priv, true); errs.KindOf(err) != errs.NotFound {
			t.Errorf("stranger's like: %v; want not found", err)
		}
		if err := w.s.Report(w.ctx, w.cat, priv, "bad"); errs.KindOf(err) != errs.NotFound {
			t.Errorf("stranger's report: %v; want not found", err)
		}
		if err := w.s.Delete(w.ctx, w.cat, priv); errs.KindOf(err) != errs.NotFound {
			t.Errorf("stranger's delete: %v; want not found (not \"not yours\")", err)
		}
		// Trending counts the public post's tags only.
		top, err := w.s.store.trend.Top(w.ctx, w.d, 10)
		w.must(err)
		for _, tr := range top {
			if tr.Tag == "secretjam" || (tr.Tag == "jazz" && tr.Uses != 1) {
				t.Errorf("trending %+v: a friends-only post counted", tr)
			}
		}
		if len(top) != 1 {
			t.Errorf("trending = %+v; want #jazz alone", top)
		}
	})
}

func TestDiscoveryCommentsLikesReposts(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		a1 := w.share(w.ann, "https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC", "one", Public)
		b1 := w.share(w.bob, "https://example.com/b1", "two", Friends)
		c1 := w.share(w.cat, "https://example.com/c1", "stranger's", Public)
		for i := range 5 {
			_, err := w.s.Comment(w.ctx, w.bob, a1, fmt.Sprint("c", i))
			w.must(err)
		}
		_, err := w.s.Like(w.ctx, w.ann, a1, true)
		w.must(err)

		f, err := w.s.Discovery(w.ctx, w.ann, 0)
		w.must(err)
		if got := ids(f); !slices.Equal(got, []int64{b1, a1}) {
			t.Fatalf("ann's discovery = %v; want bob's %d and her own %d, not cat's %d", got, b1, a1, c1)
		}
		a := f.Posts[1]
		if !a.Liked || a.Likes != 1 || a.Comments != 5 || len(a.Recent) != 3 || a.Recent[0].Body != "c2" || a.Recent[2].Body != "c4" {
			t.Errorf("ann's post: liked %v, %d likes, %d comments, recent %+v; want the newest three, oldest first", a.Liked, a.Likes, a.Comments, a.Recent)
		}
		// Reposting: public only, once, and it reaches the reposter's friends.
		if err := w.s.Repost(w.ctx, w.ann, b1); errs.KindOf(err) != errs.Forbidden {
			t.Errorf("repost of a friends-only post: %v; want Forbidden", err)
		}
		w.must(w.s.Repost(w.ctx, w.bob, c1))
		w.must(w.s.Repost(w.ctx, w.bob, c1))
		f, err = w.s.Discovery(w.ctx, w.ann, 0)
		w.must(err)
		if len(f.Posts) != 3 || f.Posts[0].RepostOf == nil || f.Posts[0].RepostOf.ID != c1 || f.Posts[0].RepostOf.Reposts != 1 {
			t.Fatalf("ann's discovery after bob's repost = %+v; want the repost of %d (1 repost) first", ids(f), c1)
		}
		// Comments off: the author still may, others not.
		w.must(w.s.CommentsOff(w.ctx, w.ann, a1, true))
		if _, err := w.s.Comment(w.ctx, w.bob, a1, "more"); errs.KindOf(err) != errs.Forbidden {
			t.Errorf("comment with comments off: %v; want Forbidden", err)
		}
		if err := w.s.CommentsOff(w.ctx, w.bob, a1, false); errs.KindOf(err) != errs.Forbidden {
			t.Errorf("comments turned on by another: %v; want Forbidden", err)
		}
		// Comments page through, oldest first.
		th, err := w.s.Thread(w.ctx, w.ann, a1, 0)
		w.must(err)
		if len(th.Comments) != 5 || th.Next != 0 {
			t.Errorf("thread: %d comments, next %d; want 5 and no more", len(th.Comments), th.Next)
		}
		// Delete: the author or a moderator.
		if err := w.s.Delete(w.ctx, w.bob, a1); errs.KindOf(err) != errs.Forbidden {
			t.Errorf("delete by another: %v; want Forbidden", err)
		}
		w.must(w.s.Delete(w.ctx, w.mod, c1))
		w.must(w.s.Delete(w.ctx, w.ann, a1))
		f, err = w.s.Discovery(w.ctx, w.ann, 0)
		w.must(err)
		if got := ids(f); !slices.Equal(got, []int64{b1}) {
			t.Errorf("after the deletes: %v; want %d (the repost went with its original)", got, b1)
		}
	})
}

func TestDiscoveryPages(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		var all []int64
		for i := range PageSize + 5 {
			all = append(all, w.share([]*auth.User{w.ann, w.bob}[i%2], fmt.Sprintf("https://example.com/%d", i), "", Friends))
		}
		slices.Reverse(all)
		var got []int64
		var before int64
		for range 3 {
			f, err := w.s.Discovery(w.ctx, w.ann, before)
			w.must(err)
			got = append(got, ids(f)...)
			if before = f.Next; before == 0 {
				break
			}
		}
		if !slices.Equal(got, all) {
			t.Fatalf("pages = %v; want %v", got, all)
		}
	})
}

func TestNotificationsAndFriends(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		// The friendship of the world: bob was asked, then ann was accepted.
		n, err := w.s.Notifications(w.ctx, w.ann, 0)
		w.must(err)
		if len(n.Groups) != 1 || n.Groups[0].Kind != "friend_accept" || n.Unseen != 1 {
			t.Fatalf("ann's notifications = %+v; want bob's acceptance, unread", n)
		}
		p := w.share(w.ann, "https://example.com/x", "", Public)
		_, err = w.s.Comment(w.ctx, w.bob, p, "nice")
		w.must(err)
		_, err = w.s.Like(w.ctx, w.bob, p, true)
		w.must(err)
		_, err = w.s.Like(w.ctx, w.cat, p, true)
		w.must(err)
		w.must(w.s.Repost(w.ctx, w.cat, p))
		n, err = w.s.Notifications(w.ctx, w.ann, 0)
		w.must(err)
		var kinds []string
		for _, g := range n.Groups {
			kinds = append(kinds, fmt.Sprint(g.Kind, len(g.Actors)))
		}
		if !slices.Equal(kinds, []string{"repost1", "like2", "comment1", "friend_accept1"}) || n.Unseen != 5 {
			t.Fatalf("ann's notifications = %v, %d unread; want repost, 2 likes, comment, acceptance; 5 unread", kinds, n.Unseen)
		}
		w.must(w.s.MarkSeen(w.ctx, w.ann, n.Newest))
		if u, _ := w.s.Unseen(w.ctx, w.ann); u != 0 {
			t.Errorf("unread after marking: %d; want 0", u)
		}
		// A request, declined; another, cancelled; a block ends a friendship.
		w.must(w.s.Relate(w.ctx, w.cat, "ann", "befriend"))
		if r, _ := w.s.Requests(w.ctx, w.ann, true, db.Cursor{}); len(r.Links) != 1 || r.Links[0].Username != "cat" {
			t.Errorf("ann's requests = %+v; want cat's", r.Links)
		}
		w.must(w.s.Relate(w.ctx, w.ann, "cat", "decline"))
		w.must(w.s.Relate(w.ctx, w.cat, "ann", "befriend"))
		w.must(w.s.Relate(w.ctx, w.cat, "ann", "cancel"))
		if r, _ := w.s.Requests(w.ctx, w.ann, true, db.Cursor{}); len(r.Links) != 0 {
			t.Errorf("ann's requests after decline and cancel = %+v; want none", r.Links)
		}
		w.must(w.s.Relate(w.ctx, w.ann, "bob", "block"))
		if f, _ := w.s.Friends(w.ctx, w.ann, db.Cursor{}); len(f.Links) != 0 {
			t.Errorf("ann's friends after blocking bob = %+v; want none", f.Links)
		}
		if _, err := w.s.Person(w.ctx, w.bob, "ann", 0); errs.KindOf(err) != errs.NotFound {
			t.Errorf("bob reads the page of ann, who blocked him: %v; want not found", err)
		}
		if err := w.s.Relate(w.ctx, w.bob, "ann", "befriend"); errs.KindOf(err) != errs.Forbidden {
			t.Errorf("befriending across a block: %v; want Forbidden", err)
		}
	})
}

// TestSearch: people search is the core's (prefix of any name word,
// accents and case aside, oldest account first, by pages), with how the
// viewer stands to each person; those who block the viewer are left out.
func TestSearch(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		auths, err := auth.New(auth.Deps{DB: w.d})
		w.must(err)
		w.s.people = auths
		more := dbtest.Users(t, w.d, "Annabel", "anna_b", "zed", "zoe")
		// Zoë's display name, as auth writes it with its name_key.
		_, err = w.d.SQL().ExecContext(w.ctx, "UPDATE users SET display_name = $1, name_key = $2 WHERE id = $3",
			"Zoë Ångström", search.Fold("zoe Zoë Ångström"), more[3])
		w.must(err)
		names := func(r *Results) []string {
			var got []string
			for _, p := range r.People {
				got = append(got, p.Username)
			}
			return got
		}
		for _, c := range []struct {
			q    string
			want []string
		}{
			{"ann", []string{"ann", "Annabel", "anna_b"}},
			{"@ANNA", []string{"Annabel", "anna_b"}},
			{"anna b", []string{"anna_b"}},
			{"ÅNGS", []string{"zoe"}},
			{"zoë", []string{"zoe"}},
			{"z", []string{"zed", "zoe"}},
			{"q", nil},
			{"", nil},
			{"%", nil},
		} {
			r, err := w.s.Search(w.ctx, w.bob, c.q, db.Cursor{})
			w.must(err)
			if got := names(r); !slices.Equal(got, c.want) {
				t.Errorf("Search(%q) = %v; want %v", c.q, got, c.want)
			}
		}
		// Ann's ties: bob a friend, cat asking, mod asked, zed blocked;
		// zoe blocks ann and is not found by her.
		w.must(w.s.Relate(w.ctx, w.cat, "ann", "befriend"))
		w.must(w.s.Relate(w.ctx, w.ann, "mod", "befriend"))
		w.must(w.s.Relate(w.ctx, w.ann, "zed", "block"))
		w.must(w.s.Relate(w.ctx, &auth.User{ID: more[3], Username: "zoe"}, "ann", "block"))
		var all []Found
		for _, q := range []string{"a", "b", "c", "m", "z"} {
			r, err := w.s.Search(w.ctx, w.ann, q, db.Cursor{})
			w.must(err)
			all = append(all, r.People...)
		}
		got := map[string]string{}
		for _, f := range all {
			got[f.Username] = fmt.Sprintf("%+v me=%v", f.Tie, f.Me)
		}
		want := map[string]string{
			"ann":     fmt.Sprintf("%+v me=true", social.Tie{}),
			"Annabel": fmt.Sprintf("%+v me=false", social.Tie{}),
			"anna_b":  fmt.Sprintf("%+v me=false", social.Tie{}),
			"bob":     fmt.Sprintf("%+v me=false", social.Tie{Friend: social.Friends}),
			"cat":     fmt.Sprintf("%+v me=false", social.Tie{Friend: social.Asking}),
			"mod":     fmt.Sprintf("%+v me=false", social.Tie{Friend: social.Asked}),
			"zed":     fmt.Sprintf("%+v me=false", social.Tie{Blocked: true}),
		}
		if !maps.Equal(got, want) {
			t.Errorf("ann's search: %v; want %v", got, want)
		}
		// Pages: 25 people whose names start alike, 20 then 5, no overlap.
		var many []string
		for i := range 25 {
			many = append(many, fmt.Sprintf("page%02d", i))
		}
		dbtest.Users(t, w.d, many...)
		first, err := w.s.Search(w.ctx, w.ann, "page", db.Cursor{})
		w.must(err)
		if first.Next.IsZero() || len(first.People) != SearchLimit {
			t.Fatalf("first page: %d people, next %v; want %d and a next page", len(first.People), first.Next, SearchLimit)
		}
		second, err := w.s.Search(w.ctx, w.ann, "page", db.ParseCursor(first.Next.String()))
		w.must(err)
		if got := append(names(first), names(second)...); !slices.Equal(got, many) || !second.Next.IsZero() {
			t.Errorf("both pages: %v, next %v; want %v and the end", got, second.Next, many)
		}
	})
}

// TestForgetAccount: deleting an account lowers the counts of the posts it
// liked, commented on and reposted, and its own posts go.
func TestForgetAccount(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		p := w.share(w.cat, "https://example.com/c", "", Public)
		mine := w.share(w.bob, "https://example.com/b", "", Public)
		_, err := w.s.Like(w.ctx, w.bob, p, true)
		w.must(err)
		_, err = w.s.Comment(w.ctx, w.bob, p, "hi")
		w.must(err)
		_, err = w.s.Comment(w.ctx, w.ann, p, "hello")
		w.must(err)
		w.must(w.s.Repost(w.ctx, w.bob, p))
		w.must(w.d.WithTx(w.ctx, func(tx *db.Tx) error {
			if err := w.s.ForgetAccount(w.ctx, tx, w.bob.ID); err != nil {
				return err
			}
			_, err := tx.Exec(w.ctx, "DELETE FROM users WHERE id = ?", w.bob.ID)
			return err
		}))
		post, err := w.s.Post(w.ctx, w.cat, p)
		w.must(err)
		if post.Likes != 0 || post.Comments != 1 || post.Reposts != 0 {
			t.Errorf("cat's post after bob left: %d likes, %d comments, %d reposts; want 0, 1, 0", post.Likes, post.Comments, post.Reposts)
		}
		if _, err := w.s.Post(w.ctx, w.cat, mine); errs.KindOf(err) != errs.NotFound {
			t.Errorf("bob's post after he left: %v; want not found", err)
		}
	})
}
