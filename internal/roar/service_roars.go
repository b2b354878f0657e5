package roar

import (
	"context"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
)

// Post writes a roar (or a reply) by u and returns it: u signed in, the body
// clean (CleanBody), within the rate limit; a reply to someone who blocked
// u, or whom u blocked, is refused (errBlocked).
func (s *Service) Post(ctx context.Context, u *auth.User, body string, replyTo int64) (*Roar, error) {
	if u == nil {
		return nil, errSignIn
	}
	body, err := CleanBody(body)
	if err != nil {
		return nil, err
	}
	if err := s.paced(ctx, u); err != nil {
		return nil, err
	}
	return s.insert(ctx, u, Post{Body: body, ReplyTo: replyTo})
}

// Repost sets whether u reposts roar id and returns its repost count. It is
// idempotent: reposting what u already reposted changes nothing and does not
// count against the rate limit.
func (s *Service) Repost(ctx context.Context, u *auth.User, id int64, on bool) (int64, error) {
	if u == nil {
		return 0, errSignIn
	}
	if !on {
		var gone int64
		if err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
			gone, err = s.store.unrepost(ctx, tx, id, u.ID)
			return err
		}); err != nil {
			return 0, err
		}
		if gone != 0 {
			s.publish(ctx, &Event{Type: "delete", ID: gone, Gone: []int64{gone}})
			s.publishCounts(ctx, id)
		}
		return s.reposts(ctx, id)
	}
	if done, err := s.store.Reposted(ctx, u.ID, []int64{id}); err != nil || done[id] {
		if err != nil {
			return 0, err
		}
		return s.reposts(ctx, id)
	}
	if err := s.paced(ctx, u); err != nil {
		return 0, err
	}
	r, err := s.insert(ctx, u, Post{RepostOf: id})
	if errs.KindOf(err) == errs.Conflict { // reposted meanwhile, by another request
		return s.reposts(ctx, id)
	}
	if err != nil {
		return 0, err
	}
	s.publishCounts(ctx, id)
	return r.RepostOf.Reposts, nil
}

func (s *Service) reposts(ctx context.Context, id int64) (int64, error) {
	r, err := s.store.Roar(ctx, id)
	if err != nil {
		return 0, err
	}
	return r.Reposts, nil
}

// insert writes p (already checked) by author and tells the streams: the
// new roar, the parent's counts, the unread badges of whom it notified.
func (s *Service) insert(ctx context.Context, by *auth.User, p Post) (*Roar, error) {
	p.Author, p.At = by.ID, s.store.now().UnixMilli()
	var id int64
	var sent social.Sent
	if err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		sent = sent[:0] // a batch that failed runs its writes again
		id, err = s.store.insert(ctx, tx, p, &sent)
		return err
	}); err != nil {
		return nil, err
	}
	s.publishUnread(ctx, sent)
	s.tagsChanged(p.Body)
	var r *Roar
	if p.ReplyTo == 0 && p.RepostOf == 0 {
		// A plain roar is what was written, by whom: no need to read it
		// back (a query to the primary per post, in cluster mode).
		r = &Roar{ID: id, Author: Author{ID: by.ID, Username: by.Username, DisplayName: by.DisplayName, Avatar: by.Avatar},
			Body: p.Body, CreatedAt: time.UnixMilli(p.At).UTC()}
	} else {
		var err error
		if r, err = s.store.Roar(ctx, id); err != nil {
			return nil, err
		}
	}
	s.publish(ctx, roarEvent(r))
	if p.ReplyTo != 0 {
		s.publishCounts(ctx, p.ReplyTo)
	}
	return r, nil
}

// Like sets whether u likes roar id and returns its like count (idempotent;
// refused between users who blocked one another).
func (s *Service) Like(ctx context.Context, u *auth.User, id int64, on bool) (int64, error) {
	if u == nil {
		return 0, errSignIn
	}
	var likes int64
	var sent social.Sent
	err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		sent = sent[:0]
		likes, err = s.store.like(ctx, tx, id, u.ID, on, &sent)
		return err
	})
	if err != nil {
		return 0, err
	}
	s.publishUnread(ctx, sent)
	s.publish(ctx, &Event{Type: "like", ID: id, Likes: likes})
	return likes, nil
}

// Delete removes roar id and the reposts of it: its author or a moderator
// only (errNotYours; the Store checks it again in the transaction).
func (s *Service) Delete(ctx context.Context, u *auth.User, id int64) error {
	if u == nil {
		return errSignIn
	}
	var gone []int64
	var parent *Roar // the roar, if deleting it changes another's counts
	var body string
	if r, err := s.store.Roar(ctx, id); err == nil {
		if r.Author.ID != u.ID && !isModerator(u) {
			return errNotYours
		}
		if r.ReplyTo != 0 || r.RepostOf != nil {
			parent = r
		}
		body = r.Body
	} // else the write finds out (not found)
	if err := s.write(ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		gone, err = s.store.remove(ctx, tx, id, u.ID, isModerator(u))
		return err
	}); err != nil {
		return err
	}
	s.publish(ctx, &Event{Type: "delete", ID: id, Gone: gone})
	s.tagsChanged(body)
	if parent != nil {
		s.publishCounts(ctx, parent.ReplyTo)
		if parent.RepostOf != nil {
			s.publishCounts(ctx, parent.RepostOf.ID)
		}
	}
	return nil
}
