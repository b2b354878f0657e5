package social

import (
	"slices"
	"time"
)

// Group is a page's notifications of one kind about one thing, gathered:
// "ann and 2 others liked your song". Only the Once kinds gather (likes,
// reposts, follows: the same act by several people); any other
// notification (a comment, a mention) is a group of its own.
type Group struct {
	Kind      string
	Subject   int64
	Excerpt   string
	Actors    []Person // who, newest first, each once
	Count     int      // notifications in the group
	ID        int64    // the newest one's id (the list's cursor, MarkSeen's bound)
	CreatedAt time.Time
	Seen      bool // every one of them seen
}

// Others is how many actors the group has beyond the first n shown.
func (g *Group) Others(n int) int { return max(len(g.Actors)-n, 0) }

// Group gathers notes (newest first, as List gives them) into groups,
// newest first, each where its newest note was.
func (n *Notifications) Group(notes []Note) []Group {
	type key struct {
		kind    string
		subject int64
	}
	var out []Group
	at := map[key]int{} // a gathering group's index in out
	for _, no := range notes {
		k := key{no.Kind, no.Subject}
		i, ok := at[k]
		if !ok || !slices.Contains(n.c.Once, no.Kind) {
			out = append(out, Group{Kind: no.Kind, Subject: no.Subject, Excerpt: no.Excerpt, ID: no.ID,
				CreatedAt: no.CreatedAt, Seen: true})
			i = len(out) - 1
			at[k] = i
		}
		g := &out[i]
		g.Count++
		g.Seen = g.Seen && no.Seen
		if !slices.ContainsFunc(g.Actors, func(p Person) bool { return p.ID == no.Actor.ID }) {
			g.Actors = append(g.Actors, no.Actor)
		}
	}
	return out
}
