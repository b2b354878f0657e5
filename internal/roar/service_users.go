package roar

import (
	"context"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/social"
)

// Relate sets whether u follows, mutes or blocks username. Nobody relates to
// themselves; a follow between users who blocked one another is refused
// (errBlocked, in the transaction); blocking ends the follows both ways.
func (s *Service) Relate(ctx context.Context, u *auth.User, username, kind string, on bool) error {
	if u == nil {
		return errSignIn
	}
	if kind != "follow" && kind != "mute" && kind != "block" {
		return errs.E(errs.Invalid, "You can follow, mute or block someone, nothing else.")
	}
	p, err := s.store.Profile(ctx, username, u.ID)
	if err != nil {
		return err
	}
	var sent social.Sent
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
	if err := s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.markSeen(ctx, tx, u.ID, upTo) }); err != nil {
		return err
	}
	s.publishUnread(ctx, social.Sent{u.ID}) // the badge of u's other tabs
	return nil
}

// Profile returns username's profile as u (nil: a visitor) sees it, with
// their relation.
func (s *Service) Profile(ctx context.Context, u *auth.User, username string) (*Profile, error) {
	if u == nil { // a visitor: a replica's copy will do
		return s.store.Lagging().Profile(ctx, username, 0)
	}
	return s.store.Profile(ctx, username, u.ID)
}

// Notifications returns a page of u's notifications, newest first, before
// the one before (0: from the newest), at most limit, and the cursor of the
// next page (0: none). Reading them does not mark them seen (MarkSeen does).
func (s *Service) Notifications(ctx context.Context, u *auth.User, before int64, limit int) ([]Notification, int64, error) {
	if u == nil {
		return nil, 0, errSignIn
	}
	notes, err := s.store.Notifications(ctx, u.ID, before, limit+1)
	if err != nil {
		return nil, 0, err
	}
	notes, next := db.Trim(notes, limit, noteCursor)
	return notes, next.ID, nil
}

// Unread is the number of u's unseen notifications.
func (s *Service) Unread(ctx context.Context, u *auth.User) (int64, error) {
	if u == nil {
		return 0, errSignIn
	}
	return s.store.Unseen(ctx, u.ID)
}
