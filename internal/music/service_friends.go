package music

import (
	"context"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/social"
)

// Relate does verb to the user named name on u's behalf: befriend (send
// a request, or accept theirs), accept, decline, cancel (withdraw u's
// request), unfriend, block, unblock, mute, unmute. A request and an
// acceptance notify the other.
func (s *Service) Relate(ctx context.Context, u *auth.User, name, verb string) error {
	if u == nil {
		return errSignIn
	}
	if verb == "befriend" {
		if err := paced(ctx, s.limits.Friends, u, "sending friend requests"); err != nil {
			return err
		}
	}
	p, err := s.store.Profile(ctx, u.ID, name)
	if err != nil {
		return err
	}
	g := s.store.graph
	var sent social.Sent
	err = s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error {
		sent = sent[:0]
		now := s.now().UnixMilli()
		switch verb {
		case "befriend":
			st, changed, err := g.Request(ctx, tx, u.ID, p.ID)
			if err != nil || !changed {
				return err
			}
			kind := "friend_request"
			if st == social.Friends {
				kind = "friend_accept"
			}
			return s.store.notes.Add(ctx, tx, &sent, now, p.ID, kind, u.ID, 0)
		case "accept":
			changed, err := g.Accept(ctx, tx, u.ID, p.ID)
			if err != nil || !changed {
				return err
			}
			return s.store.notes.Add(ctx, tx, &sent, now, p.ID, "friend_accept", u.ID, 0)
		case "decline":
			_, err := g.Decline(ctx, tx, u.ID, p.ID)
			return err
		case "cancel":
			_, err := g.Cancel(ctx, tx, u.ID, p.ID)
			return err
		case "unfriend":
			_, err := g.Unfriend(ctx, tx, u.ID, p.ID)
			return err
		case "block", "unblock":
			_, err := g.Block(ctx, tx, u.ID, p.ID, verb == "block")
			return err
		case "mute", "unmute":
			_, err := g.Mute(ctx, tx, u.ID, p.ID, verb == "mute")
			return err
		}
		return errUnknownVerb
	})
	if err != nil {
		return err
	}
	s.notify(ctx, sent)
	return nil
}

// Verbs are what Relate does.
var Verbs = map[string]bool{"befriend": true, "accept": true, "decline": true, "cancel": true, "unfriend": true,
	"block": true, "unblock": true, "mute": true, "unmute": true}

// People is a page of people (friends or requests) with the next cursor.
type People struct {
	Links []social.Link
	Next  db.Cursor
}

// Friends returns a page of u's friends, newest friendships first.
func (s *Service) Friends(ctx context.Context, u *auth.User, after db.Cursor) (*People, error) {
	if u == nil {
		return nil, errSignIn
	}
	l, next, err := s.store.graph.Friends(ctx, s.store.db, u.ID, after, 50)
	return &People{Links: l, Next: next}, err
}

// Requests returns a page of the friend requests u received (incoming) or
// sent.
func (s *Service) Requests(ctx context.Context, u *auth.User, incoming bool, after db.Cursor) (*People, error) {
	if u == nil {
		return nil, errSignIn
	}
	l, next, err := s.store.graph.Requests(ctx, s.store.db, u.ID, incoming, after, 50)
	return &People{Links: l, Next: next}, err
}
