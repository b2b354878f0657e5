package social

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
)

func (f *fixture) notes(g *Graph) *Notifications {
	return NewNotifications(NotificationsConfig{Table: "t_notes", Subject: "post_id", Graph: g,
		Once: []string{"like", "follow"}, Excerpt: &Excerpt{Table: "t_posts", Column: "body"}})
}

// kinds lists notes as "kind:actor:subject", newest first.
func kinds(notes []Note) string {
	var s []string
	for _, n := range notes {
		s = append(s, fmt.Sprintf("%s:%s:%s", n.Kind, n.Actor.Username, n.Excerpt))
	}
	return strings.Join(s, " ")
}

// TestNotifications: stored in the writer's transaction, once for a like,
// never from oneself or from someone the user blocked or muted; counted
// and listed without those the user does not see; seen up to an id; gone
// with their post; pushed to those a write reached.
func TestNotifications(t *testing.T) {
	each(t, func(t *testing.T, f *fixture) {
		g, ctx := f.graph(), context.Background()
		n := f.notes(g)
		song := f.post(f.ann, "my song")
		other := f.post(f.ann, "another")
		var sent Sent
		add := func(user int64, kind string, actor, subject int64) {
			t.Helper()
			f.tx(func(ctx context.Context, tx *db.Tx) error {
				return n.Add(ctx, tx, &sent, f.now().UnixMilli(), user, kind, actor, subject)
			})
		}
		add(f.ann, "like", f.bob, song)
		add(f.ann, "like", f.bob, song) // liked again: not twice
		add(f.ann, "like", f.cat, song)
		add(f.ann, "comment", f.bob, song)
		add(f.ann, "comment", f.bob, song) // comments are each their own
		add(f.ann, "like", f.ann, song)    // her own: nothing
		add(f.ann, "follow", f.dan, 0)
		add(f.bob, "like", f.ann, other)
		if want := fmt.Sprint([]int64{f.ann, f.bob}); fmt.Sprint(sent) != want {
			t.Errorf("sent = %v; want %s, each once", sent, want)
		}
		list, err := n.List(ctx, f.d, f.ann, 0, 10)
		if want := "follow:dan: comment:bob:my song comment:bob:my song like:cat:my song like:bob:my song"; err != nil || kinds(list) != want {
			t.Fatalf("ann's notifications = %q, %v; want %q", kinds(list), err, want)
		}
		if list[1].Subject != song || list[0].Subject != 0 || list[0].Actor.Name() != "dan" {
			t.Errorf("subjects %d, %d, actor %+v; want %d, 0, dan", list[1].Subject, list[0].Subject, list[0].Actor, song)
		}
		if page, _ := n.List(ctx, f.d, f.ann, list[1].ID, 2); kinds(page) != "comment:bob:my song like:cat:my song" {
			t.Errorf("the page before %d = %q; want the next two", list[1].ID, kinds(page))
		}

		// Counts: one, in a union, for several users; and pushed.
		if c, err := n.Unseen(ctx, f.d, f.ann); err != nil || c != 5 {
			t.Errorf("ann's unseen = %d, %v; want 5", c, err)
		}
		var label string
		var c int64
		if err := db.Scan(f.d.QueryRow(ctx, "SELECT 'x', 0 UNION ALL "+n.UnseenSQL("unseen")+" ORDER BY 1", f.ann), &label, &c); err != nil || label != "unseen" || c != 5 {
			t.Errorf("UnseenSQL row = %s %d, %v; want unseen 5", label, c, err)
		}
		pushed := map[int64]int64{}
		if err := n.Push(ctx, f.d, Sent{f.ann, f.bob, f.cat}, func(user, unread int64) { pushed[user] = unread }); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(pushed) != fmt.Sprint(map[int64]int64{f.ann: 5, f.bob: 1, f.cat: 0}) {
			t.Errorf("pushed %v; want ann 5, bob 1, cat 0", pushed)
		}
		if !ForUser(f.ann, f.ann) || ForUser(f.bob, f.ann) || ForUser(0, f.ann) {
			t.Error("ForUser lets an event about ann's notifications reach another's stream")
		}

		// Ann mutes bob: nothing new from him, and what came is left out.
		f.tx(func(ctx context.Context, tx *db.Tx) error { _, err := g.Mute(ctx, tx, f.ann, f.bob, true); return err })
		sent = nil
		add(f.ann, "comment", f.bob, other)
		if len(sent) != 0 {
			t.Errorf("a muted user's comment notified ann (sent %v)", sent)
		}
		if list, _ := n.List(ctx, f.d, f.ann, 0, 10); kinds(list) != "follow:dan: like:cat:my song" {
			t.Errorf("ann's notifications with bob muted = %q; want dan's and cat's only", kinds(list))
		}
		if m, err := n.UnseenOf(ctx, f.d, []int64{f.ann}); err != nil || m[f.ann] != 2 {
			t.Errorf("ann's unseen with bob muted = %v, %v; want 2", m, err)
		}
		// Dan blocks ann: his follow is left out for her too.
		f.tx(func(ctx context.Context, tx *db.Tx) error { _, err := g.Block(ctx, tx, f.dan, f.ann, true); return err })
		if c, _ := n.Unseen(ctx, f.d, f.ann); c != 1 {
			t.Errorf("ann's unseen once dan blocks her = %d; want 1 (cat's like)", c)
		}

		// Seen up to an id; gone with the post.
		f.tx(func(ctx context.Context, tx *db.Tx) error { return n.MarkSeen(ctx, tx, f.ann, list[0].ID) })
		if c, _ := n.Unseen(ctx, f.d, f.ann); c != 0 {
			t.Errorf("ann's unseen after marking all seen = %d; want 0", c)
		}
		f.tx(func(ctx context.Context, tx *db.Tx) error {
			_, err := tx.Exec(ctx, "DELETE FROM t_posts WHERE id = ?", other)
			return err
		})
		if list, _ := n.List(ctx, f.d, f.bob, 0, 10); len(list) != 0 {
			t.Errorf("bob's notifications after the post went: %q; want none", kinds(list))
		}
	})
}

// TestGroup: likes of one post gather, newest first with each actor once;
// other kinds stand alone; a group is seen when all of it is.
func TestGroup(t *testing.T) {
	n := NewNotifications(NotificationsConfig{Table: "t_notes", Subject: "post_id", Once: []string{"like", "follow"},
		Graph: NewGraph(GraphTables{Blocks: "t_blocks"}, nil)})
	p := func(id int64, name string) Person { return Person{ID: id, Username: name} }
	notes := []Note{
		{ID: 9, Kind: "like", Actor: p(3, "cat"), Subject: 1},
		{ID: 8, Kind: "comment", Actor: p(2, "bob"), Subject: 1},
		{ID: 7, Kind: "like", Actor: p(2, "bob"), Subject: 1, Seen: true},
		{ID: 6, Kind: "follow", Actor: p(4, "dan")},
		{ID: 5, Kind: "like", Actor: p(2, "bob"), Subject: 2, Seen: true},
		{ID: 4, Kind: "comment", Actor: p(2, "bob"), Subject: 1, Seen: true},
		{ID: 3, Kind: "follow", Actor: p(3, "cat"), Seen: true},
		{ID: 2, Kind: "like", Actor: p(3, "cat"), Subject: 1, Seen: true}, // cat again (unliked and liked, in another app's rules)
	}
	var got []string
	for _, g := range n.Group(notes) {
		var who []string
		for _, a := range g.Actors {
			who = append(who, a.Username)
		}
		got = append(got, fmt.Sprintf("%d %s/%d %s x%d seen=%v", g.ID, g.Kind, g.Subject, strings.Join(who, ","), g.Count, g.Seen))
	}
	want := []string{
		"9 like/1 cat,bob x3 seen=false",
		"8 comment/1 bob x1 seen=false",
		"6 follow/0 dan,cat x2 seen=false",
		"5 like/2 bob x1 seen=true",
		"4 comment/1 bob x1 seen=true",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("groups:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g := n.Group(notes)[0]; g.Others(1) != 1 || g.Others(5) != 0 {
		t.Errorf("Others(1), Others(5) = %d, %d; want 1, 0", g.Others(1), g.Others(5))
	}
}
