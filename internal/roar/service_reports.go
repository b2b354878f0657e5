package roar

import (
	"context"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
)

// Report files u's report of roar id (once per user and roar), with a
// reason (the core's rule: social.Reports.Clean).
func (s *Service) Report(ctx context.Context, u *auth.User, id int64, reason string) error {
	if u == nil {
		return errSignIn
	}
	reason, err := s.store.reports.Clean(reason)
	if err != nil {
		return err
	}
	if _, err := s.store.Roar(ctx, id); err != nil {
		return err
	}
	return s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.report(ctx, tx, id, u.ID, reason) })
}

// Reports are the open reports, most reported first (at most 100):
// moderators only.
func (s *Service) Reports(ctx context.Context, u *auth.User) ([]Report, error) {
	if !isModerator(u) {
		return nil, errModerators
	}
	return s.store.Reports(ctx, 100)
}

// Dismiss closes the reports of roar id without removing it: moderators
// only.
func (s *Service) Dismiss(ctx context.Context, u *auth.User, id int64) error {
	if !isModerator(u) {
		return errModerators
	}
	return s.writeOwn(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.dismiss(ctx, tx, id) })
}
