package race

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// The registration pipeline, as a runner walks it:
//
//  1. Start claims a place (a hold) in the chosen event: one conditional
//     UPDATE in the database decides, so no event ever goes over its cap,
//     with one instance or many. The hold lasts holdFor; the runner fills
//     the wizard's pages on it (SaveEntrant, AcceptWaiver), and is never
//     refused at the end for want of a place.
//  2. Pay moves the hold to paying, charges once per hold (the gateway's
//     idempotency key is the hold's id, so a retried submit or a retry
//     after a lost answer never charges twice), and moves it to paid: the
//     durable hand-off. Nothing is lost from here: the paid hold is a row.
//  3. The writer (writer.go) turns paid holds into registrations in
//     batches, with bibs and the confirmation mail's outbox row in the
//     same transaction; the runner's waiting page finds it done.
//
// A hold that expires (the runner left) gives its place back (the sweeper,
// writer.go); a hold left paying by a crash is settled by asking the
// gateway what happened under its key.

// Wizard steps done, in order (Hold.Step).
const (
	stepDetails = 1
	stepWaiver  = 2
)

// Refusals of the pipeline.
var (
	ErrSoldOut = errs.E(errs.Conflict, "This event is sold out.")
	errNotOpen = errs.E(errs.Conflict, "Registration for this event is not open.")
	errClosed  = errs.E(errs.Conflict, "Registration for this event has closed.")
	errNoEntry = errs.E(errs.NotFound, "There is no such registration.")
)

// AlreadyRegistered is Start's refusal for a runner registered already.
type AlreadyRegistered struct{ Registration Registration }

func (a *AlreadyRegistered) Error() string { return "race: already registered" }

// Start gives u a hold in event eventID of race r: their live one if they
// have one, else a new one with a place claimed. Errors: ErrSoldOut,
// errNotOpen, errClosed, *AlreadyRegistered.
func (s *Service) Start(ctx context.Context, u *auth.User, r *Race, eventID int64) (*Hold, error) {
	e, ok := r.Event(eventID)
	if !ok {
		return nil, errs.E(errs.NotFound, "There is no such event.")
	}
	if reg, err := s.store.Registered(ctx, e.ID, u.ID); err != nil {
		return nil, err
	} else if reg != nil {
		return nil, &AlreadyRegistered{*reg}
	}
	if h, err := s.store.LiveHold(ctx, s.db, e.ID, u.ID); err != nil || h != nil {
		return h, err
	}
	now := s.now()
	switch e.Phase(now) {
	case NotOpen:
		return nil, errNotOpen
	case Closed:
		return nil, errClosed
	}
	h := &Hold{ID: token(16), EventID: e.ID, RaceID: r.ID, UserID: u.ID, Status: HoldOpen, ExpiresAt: now.Add(s.holdFor),
		Entrant: Entrant{Email: u.Email}, Amount: e.Price}
	var got bool
	err := s.batch.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
		var err error
		got, err = s.store.Claim(ctx, tx, h, now)
		return err
	})
	if errors.Is(err, errs.ErrConflict) { // another tab of theirs made one meanwhile
		if h, err := s.store.LiveHold(ctx, s.db, e.ID, u.ID); err != nil || h != nil {
			return h, err
		}
	}
	if err != nil {
		return nil, err
	}
	if !got {
		now = s.now()
		if e.Phase(now) == Closed {
			return nil, errClosed
		}
		return nil, ErrSoldOut
	}
	return h, nil
}

// Entry is u's hold id with its race and event; anyone else's is not found.
func (s *Service) Entry(ctx context.Context, u *auth.User, slug, id string) (*Race, *Event, *Hold, error) {
	if len(id) != 22 || !ValidSlug(slug) {
		return nil, nil, nil, errNoEntry
	}
	h, err := s.store.Hold(ctx, id)
	if errors.Is(err, errs.ErrNotFound) || err == nil && h.UserID != u.ID {
		return nil, nil, nil, errNoEntry
	}
	if err != nil {
		return nil, nil, nil, err
	}
	r, err := s.Race(ctx, slug)
	if err != nil {
		return nil, nil, nil, err
	}
	e, ok := r.Event(h.EventID)
	if !ok || h.RaceID != r.ID {
		return nil, nil, nil, errNoEntry
	}
	return r, e, h, nil
}

// Expired reports whether an open hold ran out at now (the sweeper may not
// have released it yet).
func (h *Hold) Expired(now time.Time) bool {
	return h.Status == HoldReleased || h.Status == HoldOpen && !now.Before(h.ExpiresAt)
}

// renew gives a hold that ran out a place again, if one is left: the
// runner came back after its expiry. ErrSoldOut if none is.
func (s *Service) renew(ctx context.Context, h *Hold) error {
	now := s.now()
	if h.Status == HoldOpen { // expired, not yet swept: release it first
		if err := s.db.WithTx(ctx, func(tx *db.Tx) error { return s.store.Release(ctx, tx, h.ID, h.UserID) }); err != nil && !errors.Is(err, ErrHoldMoved) {
			return err
		}
	}
	var got bool
	err := s.batch.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
		var err error
		got, err = s.store.Reclaim(ctx, tx, h, now, now.Add(s.holdFor))
		return err
	})
	if err != nil {
		return err
	}
	if !got {
		return ErrSoldOut
	}
	h.Status, h.ExpiresAt = HoldOpen, now.Add(s.holdFor)
	return nil
}

// onOpen runs a wizard page's write on u's open hold, renewing it first if
// it ran out.
func (s *Service) onOpen(ctx context.Context, u *auth.User, slug, id string, fn func(ctx context.Context, tx *db.Tx, r *Race, h *Hold) error) (*Hold, error) {
	r, _, h, err := s.Entry(ctx, u, slug, id)
	if err != nil {
		return nil, err
	}
	if h.Status != HoldOpen && h.Status != HoldReleased {
		return h, ErrHoldMoved
	}
	if h.Expired(s.now()) {
		if err := s.renew(ctx, h); err != nil {
			return h, err
		}
	}
	return h, s.batch.Do(ctx, func(ctx context.Context, tx *db.Tx) error { return fn(ctx, tx, r, h) })
}

// SaveEntrant stores the details page.
func (s *Service) SaveEntrant(ctx context.Context, u *auth.User, slug, id string, in EntrantInput) (*Hold, error) {
	return s.onOpen(ctx, u, slug, id, func(ctx context.Context, tx *db.Tx, r *Race, h *Hold) error {
		e, f := in.Validate(r.Date, auth.CheckEmail)
		if len(f) > 0 {
			return errs.Fields(f)
		}
		return s.store.SaveEntrant(ctx, tx, h.ID, u.ID, e, stepDetails)
	})
}

// AcceptWaiver records the waiver's acceptance.
func (s *Service) AcceptWaiver(ctx context.Context, u *auth.User, slug, id string, accepted bool) (*Hold, error) {
	return s.onOpen(ctx, u, slug, id, func(ctx context.Context, tx *db.Tx, r *Race, h *Hold) error {
		switch {
		case h.Step < stepDetails:
			return errs.E(errs.Conflict, "Fill in your details first.")
		case !accepted:
			return errs.Fields(map[string]string{"accept": "Tick the box to accept the waiver; you cannot run without it."})
		}
		return s.store.AcceptWaiver(ctx, tx, h.ID, u.ID, s.now(), stepWaiver)
	})
}

// Leave gives up u's open hold: its place goes back at once.
func (s *Service) Leave(ctx context.Context, u *auth.User, slug, id string) error {
	_, _, h, err := s.Entry(ctx, u, slug, id)
	if err != nil {
		return err
	}
	if h.Status == HoldReleased {
		return nil
	}
	return s.db.WithTx(ctx, func(tx *db.Tx) error { return s.store.Release(ctx, tx, h.ID, u.ID) })
}

// chargeTimeout bounds a charge and the write of its outcome, which go on
// if the runner's browser goes away (see Pay).
const chargeTimeout = 30 * time.Second

// payKey is the gateway's idempotency key of a hold's charge: one per
// attempt (a declined card's key would answer the next card's charge
// with the decline).
func payKey(h *Hold) string { return "race-" + h.ID + "-" + strconv.Itoa(h.Attempt) }

// Pay charges u's hold through the gateway with card and hands it to the
// writer. A retried submit (the same hold) never charges twice; a decline
// leaves the hold open (try another card); a gateway that does not answer
// leaves it paying, to be sent again (same key) or settled by the sweeper.
// It returns the hold as it now is: paid (or already paid or done).
func (s *Service) Pay(ctx context.Context, u *auth.User, slug, id, card string) (*Hold, error) {
	r, e, h, err := s.Entry(ctx, u, slug, id)
	if err != nil {
		return nil, err
	}
	switch {
	case h.Status == HoldPaid || h.Status == HoldDone:
		return h, nil
	case h.Step < stepWaiver:
		return h, errs.E(errs.Conflict, "Finish the earlier pages first.")
	case h.Expired(s.now()):
		if err := s.renew(ctx, h); err != nil {
			return h, err
		}
	}
	amount := e.Price
	if h.Status == HoldPaying {
		amount = h.Amount // a retry charges what the first attempt did
	}
	// The charge and the writing of its outcome finish even if the runner
	// goes away: a charge must not be left without its hold moving.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), chargeTimeout)
	defer cancel()
	var ok bool
	err = s.batch.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
		var err error
		ok, err = s.store.StartPaying(ctx, tx, h.ID, u.ID, amount, s.now())
		return err
	})
	if err != nil {
		return h, err
	}
	if !ok {
		return h, ErrHoldMoved
	}
	paymentID := ""
	if amount > 0 {
		p, err := s.pay.Charge(ctx, pay.Charge{Key: payKey(h), Amount: amount, Currency: r.Currency, Method: card,
			Description: r.Name + " · " + e.Name})
		var dec *pay.Declined
		var fe *errs.Error
		switch {
		case errors.As(err, &dec) || errors.As(err, &fe) && fe.Kind == errs.Invalid:
			// Nothing was charged: the hold is open again for another card.
			if ferr := s.batch.Do(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.PaymentFailed(ctx, tx, h.ID) }); ferr != nil {
				return h, ferr
			}
			return h, pay.AsUser(err)
		case err != nil:
			return h, pay.AsUser(err) // unknown: left paying; the same key settles it
		}
		paymentID = p.ID
	}
	if err := s.markPaid(ctx, h.ID, paymentID); err != nil {
		return h, err
	}
	h.Status, h.PaymentID, h.Amount = HoldPaid, paymentID, amount
	return h, nil
}

// markPaid commits the hand-off and wakes the writer.
func (s *Service) markPaid(ctx context.Context, id, paymentID string) error {
	if err := s.batch.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
		return s.store.MarkPaid(ctx, tx, id, paymentID, s.now())
	}); err != nil {
		return err
	}
	s.writer.Kick()
	return nil
}

// Written waits up to d for hold id's registration to be written (by this
// instance's writer or another's) and returns it; nil if it is not yet.
func (s *Service) Written(ctx context.Context, id string, d time.Duration) (*Registration, error) {
	if d > 0 {
		s.writer.Wait(ctx, id, d)
	}
	reg, err := s.store.RegistrationByHold(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &reg, nil
}

// Mine lists u's registrations.
func (s *Service) Mine(ctx context.Context, u *auth.User) ([]MyRow, error) {
	return s.store.ByUser(ctx, u.ID)
}

// settle decides a hold left paying since before (its process died
// between charging and storing the outcome, or the gateway never
// answered): the gateway tells what happened under the hold's key.
func (s *Service) settle(ctx context.Context, h *Hold) error {
	if h.Amount == 0 {
		return s.markPaid(ctx, h.ID, "")
	}
	p, err := s.pay.Find(ctx, payKey(h))
	var dec *pay.Declined
	switch {
	case err == nil:
		s.log.Info("race: a lost payment answer settled: paid", "hold", h.ID, "payment", p.ID)
		return s.markPaid(ctx, h.ID, p.ID)
	case errors.Is(err, pay.ErrNoCharge) || errors.As(err, &dec):
		return s.db.WithTx(ctx, func(tx *db.Tx) error { return s.store.PaymentFailed(ctx, tx, h.ID) })
	}
	return err // unavailable: next round
}
