package race

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// The waiting list: a runner who finds an event sold out may join its
// list. While anyone waits, a place that comes back (a hold released, a
// registration cancelled) is claimed by nobody else: the sweeper invites
// the next runners on the list in the order they joined, keeping a place
// for each until the invitation runs out (DefaultInviteFor), and mails
// them a link. An invitation not used in time goes, its place to the next.

// DefaultInviteFor is how long an invitation keeps its place.
const DefaultInviteFor = 24 * time.Hour

// JoinWaitlist puts u on event eventID's list; only a sold-out event has
// one, and a runner registered or holding a place needs none. A lottery's
// entries are its list before the draw (lottery.go).
func (s *Service) JoinWaitlist(ctx context.Context, u *auth.User, r *Race, eventID int64) error {
	e, err := s.FreshEvent(ctx, r, eventID)
	if err != nil {
		return err
	}
	switch p := e.Phase(s.now()); {
	case p == Closed:
		return errs.E(errs.Conflict, "Registration for this event is closed: its list takes nobody new.")
	case p != SoldOut && p != Entering:
		return errs.E(errs.Conflict, "This event is not sold out: there is no waiting list to join.")
	}
	switch reg, h, err := s.standing(ctx, e.ID, u.ID); {
	case err != nil:
		return err
	case reg != nil:
		return errs.E(errs.Conflict, "You are registered for this event already.")
	case h != nil:
		return errs.E(errs.Conflict, "You hold a place in this event already: finish registering with it.")
	}
	return s.db.WithTx(ctx, func(tx *db.Tx) error {
		return s.store.JoinWaitlist(ctx, tx, e.ID, u.ID, u.Email, web.OriginOf(ctx), s.now())
	})
}

// FreshEvent is event eventID of race r with its counts as they are now
// (r's, cached, may be seconds old).
func (s *Service) FreshEvent(ctx context.Context, r *Race, eventID int64) (*Event, error) {
	if _, ok := r.Event(eventID); !ok {
		return nil, errs.ErrNotFound
	}
	e, err := s.store.Event(ctx, eventID)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// LeaveWaitlist takes u off event eventID's list (an invitation's place
// goes to the next runner).
func (s *Service) LeaveWaitlist(ctx context.Context, u *auth.User, eventID int64) error {
	return s.db.WithTx(ctx, func(tx *db.Tx) error { return s.store.LeaveWaitlist(ctx, tx, eventID, u.ID) })
}

// WaitEntry is u's place on event eventID's list; nil if none.
func (s *Service) WaitEntry(ctx context.Context, u *auth.User, eventID int64) (*WaitEntry, error) {
	if u == nil {
		return nil, nil
	}
	return s.store.WaitEntry(ctx, eventID, u.ID)
}

// StartInvited gives u a hold on the place their invitation kept.
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
		if err := s.LeaveWaitlist(ctx, u, e.ID); err != nil {
			return nil, err
		}
		return held, nil
	}
	// Registered meanwhile (with a place of their own): the invitation's
	// place goes to the next runner, and nobody registers twice.
	if reg != nil {
		if err := s.LeaveWaitlist(ctx, u, e.ID); err != nil {
			return nil, err
		}
		return nil, &AlreadyRegistered{*reg}
	}
	now := s.now()
	h := &Hold{ID: rand.Text(), EventID: e.ID, RaceID: r.ID, UserID: u.ID, Status: checkout.Held, ExpiresAt: now.Add(s.holdFor),
		Entrant: Entrant{Email: u.Email}, Amount: e.Price, Base: web.OriginOf(ctx)}
	if err := s.db.WithTx(ctx, func(tx *db.Tx) error { return s.store.AcceptInvitation(ctx, tx, h, now) }); err != nil {
		return nil, err
	}
	return h, nil
}

// invite is the sweeper's turn of the waiting lists: expired invitations
// go, the next runners are invited, and each runner is told in the same
// transaction (tellWaitlist).
func (s *Service) invite(ctx context.Context) ([]Invitation, error) {
	now := s.now()
	return s.store.Invite(ctx, now, now.Add(s.inviteFor), func(tx *db.Tx, expired, invited []Invitation) error {
		return s.tellWaitlist(ctx, tx, expired, invited)
	})
}
