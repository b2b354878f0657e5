package roar

import (
	"context"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Relate sets whether u follows, mutes or blocks username. Nobody relates to
// themselves; a follow between users who blocked one another is refused
// (errBlocked, in the transaction); blocking ends the follows both ways.
func (s *Service) Relate(ctx context.Context, u *auth.User, username, kind string, on bool) error {
	if u == nil {
		return errSignIn
	}
	if kind != "follow" && kind != "mute" && kind != "block" {
		return errs.E(errs.Invalid, "One can follow, mute or block someone, nothing else.")
	}
	p, err := s.store.Profile(ctx, username, u.ID)
	if err != nil {
		return err
	}
	if p.ID == u.ID {
		return errs.E(errs.Invalid, "You cannot %s yourself.", kind)
	}
	var sent notified
	if err := s.write(ctx, func(ctx context.Context, tx *db.Tx) error {
		sent = sent[:0]
		return s.store.relate(ctx, tx, u.ID, p.ID, kind, on, &sent)
	}); err != nil {
		return err
	}
	s.publishUnread(ctx, sent)
	return nil
}

// MarkSeen marks u's notifications up to id as seen.
func (s *Service) MarkSeen(ctx context.Context, u *auth.User, upTo int64) error {
	if u == nil {
		return errSignIn
	}
	if err := s.write(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.markSeen(ctx, tx, u.ID, upTo) }); err != nil {
		return err
	}
	s.publishUnread(ctx, notified{u.ID}) // the badge of u's other tabs
	return nil
}
