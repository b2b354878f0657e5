package waitlist

import (
	"context"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/web"
)

// Service decides who joins, leaves and is invited, and draws the
// lotteries; it calls the store.
type Service struct {
	store     *store
	db        *db.DB
	races     Races
	tell      func(ctx context.Context, tx *db.Tx, count int, at func(i int) Letter) error
	now       func() time.Time
	inviteFor time.Duration // how long an invitation keeps its place
}

// ErrNoInvitation refuses to take a place: the runner has no invitation
// for the event that still runs.
var ErrNoInvitation = errs.E(errs.Conflict, "You have no invitation for this event that still runs.")

// Join puts u on event eventID's list; only a sold-out event has one, and
// a runner registered or holding a place needs none. A lottery's entries
// are its list before the draw (lottery.go).
func (s *Service) Join(ctx context.Context, u *auth.User, r *races.Race, eventID int64) error {
	e, err := s.event(ctx, r, eventID)
	if err != nil {
		return err
	}
	switch p := e.Phase(s.now()); {
	case p == races.Closed:
		return errs.E(errs.Conflict, "Registration for this event is closed: its list takes nobody new.")
	case p != races.SoldOut && p != races.Entering:
		return errs.E(errs.Conflict, "This event is not sold out: there is no waiting list to join.")
	}
	switch registered, holding, err := s.races.Standing(ctx, e.ID, u.ID); {
	case err != nil:
		return err
	case registered:
		return errs.E(errs.Conflict, "You are registered for this event already.")
	case holding:
		return errs.E(errs.Conflict, "You hold a place in this event already: finish registering with it.")
	}
	return s.db.WithTx(ctx, func(tx *db.Tx) error {
		return s.store.join(ctx, tx, e.ID, u.ID, u.Email, web.OriginOf(ctx), s.now())
	})
}

// event is event eventID of race r with its counts as they are now (r's,
// cached, may be seconds old); not found if it is not r's.
func (s *Service) event(ctx context.Context, r *races.Race, eventID int64) (*races.Event, error) {
	if _, ok := r.Event(eventID); !ok {
		return nil, errs.ErrNotFound
	}
	e, err := s.races.Event(ctx, eventID)
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// Leave takes u off event eventID's list (an invitation's place goes to
// the next runner).
func (s *Service) Leave(ctx context.Context, u *auth.User, eventID int64) error {
	return s.db.WithTx(ctx, func(tx *db.Tx) error { return s.store.leave(ctx, tx, eventID, u.ID) })
}

// Entry is u's place on event eventID's list; nil if none (or u nil).
func (s *Service) Entry(ctx context.Context, u *auth.User, eventID int64) (*Entry, error) {
	if u == nil {
		return nil, nil
	}
	return s.store.entry(ctx, eventID, u.ID)
}

// Accept uses, in tx, user's invitation to event eventID that runs at now:
// the place it kept becomes the runner's, for the hold race's registration
// opens with it in the same transaction (nothing is claimed again).
// ErrNoInvitation if there is none.
func (s *Service) Accept(ctx context.Context, tx *db.Tx, eventID, userID int64, now time.Time) error {
	return s.store.accept(ctx, tx, eventID, userID, now)
}

// Invite is the sweep's turn of the waiting lists: expired invitations
// go, the next runners are invited, and each runner is told in the same
// transaction (tellInvited). It returns how many were invited.
func (s *Service) Invite(ctx context.Context) (int, error) {
	now := s.now()
	inv, err := s.store.invite(ctx, now, now.Add(s.inviteFor), func(tx *db.Tx, expired, invited []invitation) error {
		return s.tellInvited(ctx, tx, expired, invited)
	})
	return len(inv), err
}

// Lock locks userID's live entries (waiting or invited) until tx ends,
// when their account goes: an invitation going out meanwhile waits for tx,
// then finds them gone. Take it where the account's other rows are
// locked, before LeaveAll.
func (s *Service) Lock(ctx context.Context, tx *db.Tx, userID int64) error {
	return s.store.lock(ctx, tx, userID)
}

// LeaveAll takes userID off every list, in tx (their account goes): a
// place in the line goes, an invitation's kept place comes back. It
// returns the events whose counts changed.
func (s *Service) LeaveAll(ctx context.Context, tx *db.Tx, userID int64) ([]int64, error) {
	events, err := s.store.entered(ctx, tx, userID)
	if err != nil {
		return nil, err
	}
	for _, ev := range events {
		if err := s.store.leave(ctx, tx, ev, userID); err != nil {
			return nil, err
		}
	}
	return events, nil
}
