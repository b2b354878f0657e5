package roar

import (
	"context"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/social"
)

// What the Service tells the live streams, after each commit. The events
// carry the facts (ids, counts, who); the App adds what the streams show of
// a roar (its rendered article and API form: App.announce) before sending
// them on the bus.

// roarEvent is the live event of roar r, new or missed by a stream.
func roarEvent(r *Roar) *Event {
	e := &Event{Type: "roar", ID: r.ID, Author: r.Author.ID, ReplyTo: r.ReplyTo, At: r.CreatedAt.UnixMilli(), of: r}
	if r.RepostOf != nil {
		e.Origin = r.RepostOf.Author.ID
	}
	return e
}

// publishCounts sends the current counts of roar id (after a reply or repost).
func (s *Service) publishCounts(ctx context.Context, id int64) {
	if id == 0 {
		return
	}
	if r, err := s.store.Roar(ctx, id); err == nil {
		s.publish(ctx, &Event{Type: "counts", ID: id, Likes: r.Likes, of: r})
	}
}

// publishUnread sends each user their unread count ("notify" events go to
// that user's streams only: the badge updates live).
func (s *Service) publishUnread(ctx context.Context, users social.Sent) {
	err := s.store.notes.Push(ctx, s.store.db, users, func(user, unread int64) {
		s.publish(ctx, &Event{Type: "notify", ID: user, Unread: &unread})
	})
	if err != nil {
		s.log.Warn("roar: unread counts", "users", len(users), "err", err)
	}
}

// StreamFilter returns what one live stream of u (nil: a visitor) shows of
// the events: not the roars of authors u does not see (muted, blocked or
// blocking u), on the home feed only the roars of the people u follows and
// u's own, with thread (not 0) only the replies to that roar (a thread
// page: the counts and likes of every roar still come), and only u's own
// "notify" events; feed "none" shows only those (for a page without a
// timeline).
func (s *Service) StreamFilter(ctx context.Context, u *auth.User, feed string, thread int64) (func(*Event) bool, error) {
	f := &filter{quiet: feed == "none", thread: thread}
	if u != nil {
		f.me = u.ID
		var err error
		if f.rel, err = s.store.Relations(ctx, u.ID); err != nil {
			return nil, err
		}
		if feed == "home" {
			if f.follows, err = s.store.Following(ctx, u.ID); err != nil {
				return nil, err
			}
			f.follows[u.ID] = true
		}
	}
	return f.pass, nil
}

// Backlog returns the roars after the id after, oldest first (at most 500;
// with thread not 0, the replies to that roar): what a stream that
// reconnects missed. StreamFilter's filter applies.
func (s *Service) Backlog(ctx context.Context, after, thread int64) ([]Roar, error) {
	return s.store.Timeline(ctx, Query{Since: after, Thread: thread, Limit: 500})
}

// filter is what one stream shows: not the authors the viewer does not see,
// on the home feed only the people they follow, and only the viewer's own
// "notify" events (feed=none: only those, for a page without a timeline).
type filter struct {
	rel     *Relations
	follows map[int64]bool // nil: everyone
	me      int64          // the viewer (0: a visitor)
	quiet   bool           // feed=none
	thread  int64          // only the replies to this roar (0: any roar)
}

func (f *filter) pass(e *Event) bool {
	if e.Type == "notify" {
		return social.ForUser(f.me, e.ID)
	}
	if f.quiet {
		return false
	}
	if e.Type != "roar" {
		return true
	}
	if f.thread != 0 && e.ReplyTo != f.thread {
		return false
	}
	if f.rel != nil && (f.rel.Hidden[e.Author] || (e.Origin != 0 && f.rel.Hidden[e.Origin])) {
		return false
	}
	return f.follows == nil || f.follows[e.Author]
}
