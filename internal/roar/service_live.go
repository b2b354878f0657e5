package roar

import "context"

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
func (s *Service) publishUnread(ctx context.Context, users notified) {
	for _, id := range users {
		n, err := s.store.Unseen(ctx, id)
		if err != nil {
			s.log.Warn("roar: unread count", "user", id, "err", err)
			continue
		}
		s.publish(ctx, &Event{Type: "notify", ID: id, Unread: &n})
	}
}
