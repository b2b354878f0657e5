package race

import (
	"context"
	"crypto/rand"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// A runner invited from an event's waiting list (package waitlist)
// registers as any other, on the place the invitation kept.

// StartInvited gives u a hold on the place their invitation kept
// (waitlist.ErrNoInvitation if none runs).
func (s *Service) StartInvited(ctx context.Context, u *auth.User, r *Race, eventID int64) (*Hold, error) {
	e, ok := r.Event(eventID)
	if !ok {
		return nil, errs.ErrNotFound
	}
	reg, held, err := s.standing(ctx, e.ID, u.ID)
	if err != nil {
		return nil, err
	}
	// Holding a place of their own meanwhile (taken when the list was all
	// invited and a place came free): they go on with it, and the
	// invitation's place goes to the next runner, not kept for a day.
	if held != nil {
		if err := s.waitlist.Leave(ctx, u, e.ID); err != nil {
			return nil, err
		}
		return held, nil
	}
	// Registered meanwhile (with a place of their own): the invitation's
	// place goes to the next runner, and nobody registers twice.
	if reg != nil {
		if err := s.waitlist.Leave(ctx, u, e.ID); err != nil {
			return nil, err
		}
		return nil, &AlreadyRegistered{*reg}
	}
	now := s.now()
	h := &Hold{ID: rand.Text(), EventID: e.ID, RaceID: r.ID, UserID: u.ID, Status: checkout.Held, ExpiresAt: now.Add(s.holdFor),
		Entrant: Entrant{Email: u.Email}, Amount: e.Price, Base: web.OriginOf(ctx)}
	err = s.db.WithTx(ctx, func(tx *db.Tx) error {
		if err := s.waitlist.Accept(ctx, tx, e.ID, u.ID, now); err != nil {
			return err
		}
		return insertHold(ctx, tx, h, nil, now)
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}
