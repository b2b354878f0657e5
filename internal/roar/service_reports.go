package roar

import (
	"context"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/text"
)

// reasonField is the rule for a report's reason (package text).
var reasonField = text.Field{Name: "The reason", Min: 1, Max: 1000, Multiline: true,
	Empty: "Say what is wrong with this roar."}

// Report files u's report of roar id (once per user and roar), with a
// reason (reasonField).
func (s *Service) Report(ctx context.Context, u *auth.User, id int64, reason string) error {
	if u == nil {
		return errSignIn
	}
	reason, msg := reasonField.Clean(reason)
	if msg != "" {
		return errs.Fields(map[string]string{"reason": msg})
	}
	if _, err := s.store.Roar(ctx, id); err != nil {
		return err
	}
	return s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.report(ctx, tx, id, u.ID, reason) })
}

// Reports are the open reports, most reported first (at most 100):
// moderators only.
func (s *Service) Reports(ctx context.Context, u *auth.User) ([]Report, error) {
	if u == nil || !u.Moderator {
		return nil, errModerators
	}
	return s.store.Reports(ctx, 100)
}

// Dismiss closes the reports of roar id without removing it: moderators
// only.
func (s *Service) Dismiss(ctx context.Context, u *auth.User, id int64) error {
	if u == nil || !u.Moderator {
		return errModerators
	}
	return s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.dismiss(ctx, tx, id) })
}
