package music

import (
	"context"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
	"github.com/tutti-dev/tutti/internal/tags"
)

// PageSize is how many posts a timeline page shows.
const PageSize = 20

// Feed is a page of a timeline for a viewer.
type Feed struct {
	Posts  []Post
	Next   int64 // the cursor of the next page (0: the end)
	Unseen int64 // the viewer's unread notifications
}

func viewerID(u *auth.User) int64 {
	if u == nil {
		return 0
	}
	return u.ID
}

// timeline reads q for u with u's unread count: a fixed number of
// statements whatever the page holds.
func (s *Service) timeline(ctx context.Context, u *auth.User, q Query) (*Feed, error) {
	q.Viewer, q.Limit = viewerID(u), PageSize
	posts, next, err := s.store.Timeline(ctx, q)
	if err != nil {
		return nil, err
	}
	f := &Feed{Posts: posts, Next: next}
	if u != nil {
		if f.Unseen, err = s.store.Unseen(ctx, u.ID); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// Discovery is u's friends' posts and u's own, newest first.
func (s *Service) Discovery(ctx context.Context, u *auth.User, before int64) (*Feed, error) {
	if u == nil {
		return nil, errSignIn
	}
	return s.timeline(ctx, u, Query{Discovery: true, Before: before})
}

// Everyone is the public posts of everyone, newest first (what a visitor
// sees on music's front page).
func (s *Service) Everyone(ctx context.Context, u *auth.User, before int64) (*Feed, error) {
	return s.timeline(ctx, u, Query{Before: before})
}

// Tagged is the posts tagged tag (a key, as tags.Key gives it) that u may
// see, newest first.
func (s *Service) Tagged(ctx context.Context, u *auth.User, tag string, before int64) (*Feed, error) {
	return s.timeline(ctx, u, Query{Tag: tag, Before: before})
}

// Person is a profile with the page of posts the viewer may see: a
// stranger the public ones, a friend (and the person) all of them.
type Person struct {
	*Profile
	*Feed
}

// Person returns the profile of the user named name and their posts u may
// see. A block either way hides the person (not found).
func (s *Service) Person(ctx context.Context, u *auth.User, name string, before int64) (*Person, error) {
	p, err := s.store.Profile(ctx, viewerID(u), name)
	if err != nil {
		return nil, err
	}
	if p.BlocksMe {
		return nil, errs.ErrNotFound
	}
	f, err := s.timeline(ctx, u, Query{Author: p.ID, Before: before})
	if err != nil {
		return nil, err
	}
	return &Person{Profile: p, Feed: f}, nil
}

// Thread is a post's page: the post and a page of its comments.
type Thread struct {
	Post     *Post
	Comments []Comment
	Next     int64 // the cursor of the next page of comments (0: the end)
	Unseen   int64
}

// Thread returns post id with its comments after the comment id after, if
// u may see it (else not found). A repost's page is its original's.
func (s *Service) Thread(ctx context.Context, u *auth.User, id, after int64) (*Thread, error) {
	p, err := s.store.Post(ctx, viewerID(u), id)
	if err != nil {
		return nil, err
	}
	t := &Thread{Post: p}
	if t.Comments, t.Next, err = s.store.Comments(ctx, viewerID(u), p.Target().ID, after, 50); err != nil {
		return nil, err
	}
	if u != nil {
		if t.Unseen, err = s.store.Unseen(ctx, u.ID); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Post returns post id if u may see it.
func (s *Service) Post(ctx context.Context, u *auth.User, id int64) (*Post, error) {
	return s.store.Post(ctx, viewerID(u), id)
}

// Notifications is a page of u's notifications, grouped.
type Notifications struct {
	Groups []social.Group
	Next   int64 // the id before which the next page starts (0: the end)
	Newest int64 // the newest one's id (MarkSeen's bound)
	Unseen int64
}

// Notifications returns u's notifications before the id before.
func (s *Service) Notifications(ctx context.Context, u *auth.User, before int64) (*Notifications, error) {
	if u == nil {
		return nil, errSignIn
	}
	const limit = 50
	notes, err := s.store.notes.List(ctx, s.store.db, u.ID, before, limit+1)
	if err != nil {
		return nil, err
	}
	n := &Notifications{}
	if len(notes) > limit {
		notes = notes[:limit]
		n.Next = notes[limit-1].ID
	}
	if len(notes) > 0 {
		n.Newest = notes[0].ID
	}
	n.Groups = s.store.notes.Group(notes)
	if n.Unseen, err = s.store.Unseen(ctx, u.ID); err != nil {
		return nil, err
	}
	return n, nil
}

// TagKey is the key of a tag named in a URL, or not found.
func TagKey(s string) (string, error) {
	k, ok := tags.Key(s)
	if !ok {
		return "", errs.ErrNotFound
	}
	return k, nil
}

// Unseen is u's unread notifications (0 for a visitor).
func (s *Service) Unseen(ctx context.Context, u *auth.User) (int64, error) {
	if u == nil {
		return 0, nil
	}
	return s.store.Unseen(ctx, u.ID)
}
