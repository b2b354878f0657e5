package race

import (
	"context"
	"errors"
	"strings"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// A director's management of the race itself: co-directors removed, a
// race unpublished while nobody has registered, a draft deleted.

var (
	errOwnerStays   = errs.E(errs.Conflict, "The race's creator stays a director.")
	errRunnersIn    = errs.E(errs.Conflict, "Runners have registered (or hold a place) for this race: it stays published. Cancel their registrations first.")
	errNotPublished = errs.E(errs.Conflict, "The race is not published.")
	errDraftsOnly   = errs.E(errs.Conflict, "Only a draft can be deleted: unpublish the race first (possible while nobody has registered).")
)

// RemoveDirector takes the co-director named name off the race; the race's
// creator stays.
func (s *Service) RemoveDirector(ctx context.Context, d *Directing, name string) error {
	other, err := s.users(ctx, strings.TrimSpace(name))
	if errors.Is(err, errs.ErrNotFound) {
		return errs.Fields(map[string]string{"remove": "There is no account with that username."})
	}
	if err != nil {
		return err
	}
	if other.ID == d.Race.OwnerID {
		return errOwnerStays
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.RemoveDirector(ctx, tx, d.Race.ID, other.ID) })
}

// Unpublish takes a published race nobody has registered for (or holds a
// place in) off the site; it is a draft again.
func (s *Service) Unpublish(ctx context.Context, d *Directing) error {
	if !d.Race.Published() {
		return errNotPublished
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.Unpublish(ctx, tx, d.Race.ID) })
}

// DeleteDraft deletes a race never published (or unpublished), with its
// events, extras, codes and logo.
func (s *Service) DeleteDraft(ctx context.Context, d *Directing) error {
	if d.Race.Published() {
		return errDraftsOnly
	}
	var v int64
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		var err error
		if v, err = s.store.bump(ctx, tx, d.Race.ID, s.now()); err != nil {
			return err
		}
		return s.store.DeleteDraft(ctx, tx, d.Race.ID)
	})
	if err != nil {
		return err
	}
	s.changed(d.Race.Slug, v)
	s.forgetLogo(ctx, d.Race.ID, d.Race.Logo)
	return nil
}
