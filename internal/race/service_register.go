package race

import (
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/text"
	"github.com/tutti-dev/tutti/internal/web"
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
//  3. The writer (writer.go, a checkout.Writer) turns paid holds into
//     registrations in batches, with bibs and the confirmation mail's
//     outbox row in the same transaction; the runner's waiting page finds
//     it done (Written, on whichever instance wrote it).
//
// A hold that expires (the runner left) gives its place back (the
// writer's sweep); a hold left paying by a crash is settled by asking the
// gateway what happened under its key (checkout.Writer.SettlePaying).

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
	return s.start(ctx, u, r, eventID, "")
}

// StartEarly is Start before an event opens, with an early-access code
// (a field error for a code that is not one, or is used up); the hold
// carries the code, and its discount if it has one.
func (s *Service) StartEarly(ctx context.Context, u *auth.User, r *Race, eventID int64, code string) (*Hold, error) {
	name := CleanCode(code)
	if name == "" {
		return nil, errs.Fields(map[string]string{"code": "Type the code as you were given it (4 to 20 letters, digits or dashes)."})
	}
	return s.start(ctx, u, r, eventID, name)
}

// standing is what u has in event already: a registration, else a live
// hold, else neither. Starting, joining the waiting list and taking an
// invitation each ask first.
func (s *Service) standing(ctx context.Context, eventID, userID int64) (*Registration, *Hold, error) {
	// Most runners who start have neither: one read says so.
	if registered, held, err := s.store.Standing(ctx, eventID, userID); err != nil || !registered && !held {
		return nil, nil, err
	}
	reg, err := s.store.Registered(ctx, eventID, userID)
	if err != nil || reg != nil {
		return reg, nil, err
	}
	h, err := s.store.LiveHold(ctx, s.db, eventID, userID)
	return nil, h, err
}

// already is standing as start answers it: the runner's live hold, or
// *AlreadyRegistered as the error (reg, not nil, says so).
func (s *Service) already(ctx context.Context, eventID, userID int64) (reg *Registration, h *Hold, err error) {
	reg, h, err = s.standing(ctx, eventID, userID)
	if err == nil && reg != nil {
		err = &AlreadyRegistered{*reg}
	}
	return reg, h, err
}

func (s *Service) start(ctx context.Context, u *auth.User, r *Race, eventID int64, code string) (*Hold, error) {
	e, ok := r.Event(eventID)
	if !ok {
		return nil, errs.E(errs.NotFound, "There is no such event.")
	}
	now := s.now()
	var early *Code
	phase := e.Phase(now)
	// In the rush the claim itself refuses a runner registered or holding
	// a place already (Claim), and they are looked up only then: a read
	// less for each runner who starts. Off it, what they have comes first.
	rush := code == "" && phase != NotOpen && phase != Closed
	if !rush {
		if reg, h, err := s.already(ctx, e.ID, u.ID); err != nil || reg != nil || h != nil {
			return h, err
		}
	}
	if phase == Closed {
		return nil, errClosed
	}
	if code != "" && phase != NotOpen {
		// Early access is over: the place is taken in turn, from the race
		// page and through the waiting room, as everyone's.
		return nil, errs.Fields(map[string]string{"code": "Registration for this event is open now: register from the race page."})
	}
	switch phase {
	case NotOpen:
		if code == "" {
			return nil, errNotOpen
		}
		c, err := s.store.CodeByName(ctx, s.db, r.ID, code)
		if errors.Is(err, errs.ErrNotFound) || err == nil && !c.Early {
			return nil, errs.Fields(map[string]string{"code": "This is not an early-access code of this race."})
		}
		if err != nil {
			return nil, err
		}
		early = &c
	}
	h := &Hold{ID: rand.Text(), EventID: e.ID, RaceID: r.ID, UserID: u.ID, Status: checkout.Held, ExpiresAt: now.Add(s.holdFor),
		Entrant: Entrant{Email: u.Email}, Amount: e.Price, Base: web.OriginOf(ctx)}
	if early != nil {
		// Alone, not batched: it may fail for its own input (used up).
		h.CodeID, h.Code = early.ID, early.Code // its discount: ClaimEarly, at the price of the moment
		var got bool
		err := s.db.WithTx(ctx, func(tx *db.Tx) error {
			var err error
			got, err = s.store.ClaimEarly(ctx, tx, h, early, now)
			return err
		})
		switch {
		case errors.Is(err, errs.ErrConflict): // another tab of theirs made one meanwhile
			return s.store.LiveHold(ctx, s.db, e.ID, u.ID)
		case err != nil:
			return nil, err
		case !got:
			return nil, ErrSoldOut
		}
		return h, nil
	}
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
		if reg, h, err := s.already(ctx, e.ID, u.ID); err != nil || reg != nil || h != nil {
			return h, err
		}
		now = s.now()
		if e.Phase(now) == Closed {
			return nil, errClosed
		}
		return nil, ErrSoldOut
	}
	return h, nil
}

// Entry is a runner's hold with its race and event, as Service.Entry loaded
// it for its owner. A request loads it once; the wizard's writes take it,
// and their statements check the owner again (user_id) in SQL.
type Entry struct {
	User  *auth.User
	Race  *Race
	Event *Event
	Hold  *Hold
}

// validHoldID reports whether s could be a hold id (rand.Text's 26
// characters; 22 URL-safe ones before), so that garbage never reaches the
// database.
func validHoldID(s string) bool { return (len(s) == 26 || len(s) == 22) && text.IsToken(s) }

// HoldNow is hold h as stored now, after a write that another request (or
// another send of the same one) made.
func (s *Service) HoldNow(ctx context.Context, h *Hold) (*Hold, error) {
	return s.store.Hold(ctx, h.ID)
}

// Entry is u's hold id with its race and event; anyone else's is not found.
func (s *Service) Entry(ctx context.Context, u *auth.User, slug, id string) (*Entry, error) {
	if !validHoldID(id) || !ValidSlug(slug) {
		return nil, errNoEntry
	}
	h, err := s.store.Hold(ctx, id)
	if errors.Is(err, errs.ErrNotFound) || err == nil && h.UserID != u.ID {
		return nil, errNoEntry
	}
	if err != nil {
		return nil, err
	}
	r, err := s.Race(ctx, slug)
	if err != nil {
		return nil, err
	}
	e, ok := r.Event(h.EventID)
	if !ok || h.RaceID != r.ID {
		return nil, errNoEntry
	}
	return &Entry{User: u, Race: r, Event: e, Hold: h}, nil
}

// Expired reports whether an open hold ran out at now (the sweeper may not
// have released it yet).
func (h *Hold) Expired(now time.Time) bool {
	return h.Status == checkout.Released || h.Status == checkout.Held && !now.Before(h.ExpiresAt)
}

// errEarlyRanOut: an early-access hold ran out before the opening; its
// code's use went back with it, and a renewal claims as anyone does.
var errEarlyRanOut = errs.E(errs.Conflict, "Your place ran out before registration opened: hold one again with your early-access code.")

// renew gives a hold of event e that ran out a place again, if one is
// left: the runner came back after its expiry. ErrSoldOut if none is.
func (s *Service) renew(ctx context.Context, e *Event, h *Hold) error {
	now := s.now()
	if h.Status == checkout.Held { // expired, not yet swept: release it first
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
	switch {
	case !got && now.Before(e.OpensAt):
		return errEarlyRanOut
	case !got:
		return ErrSoldOut
	}
	// The release gave its store lines back (and may have sent it back
	// to the store page): the hold as it now is.
	fresh, err := s.store.Hold(ctx, h.ID)
	if err != nil {
		return err
	}
	*h = *fresh
	return nil
}

// onOpen runs the write of page step, already validated, on the entry's
// open hold, renewing it first if it ran out; ErrHoldMoved if the hold is
// not open or has not done the pages before. The write is batched with
// other runners': it must not fail for its own input (that would roll the
// batch back and run it again without this write); one that may runs alone.
func (s *Service) onOpen(ctx context.Context, en *Entry, step int, alone bool, write func(ctx context.Context, tx *db.Tx) error) error {
	h := en.Hold
	if h.Status != checkout.Held && h.Status != checkout.Released || h.Step < en.Race.needs(step) {
		return ErrHoldMoved
	}
	if h.Expired(s.now()) {
		if err := s.renew(ctx, en.Event, h); err != nil {
			return err
		}
		if h.Step < en.Race.needs(step) { // its store lines went back
			return ErrHoldMoved
		}
	}
	if alone {
		return s.db.WithTx(ctx, func(tx *db.Tx) error { return write(ctx, tx) })
	}
	return s.batch.Do(ctx, write)
}

// SaveEntrant stores the details page.
func (s *Service) SaveEntrant(ctx context.Context, en *Entry, in EntrantInput) error {
	e, f := in.Validate(en.Race, auth.CheckEmail)
	if len(f) > 0 {
		return errs.Fields(f)
	}
	return s.onOpen(ctx, en, stepDetails, false, func(ctx context.Context, tx *db.Tx) error {
		return s.store.SaveEntrant(ctx, tx, en.Hold.ID, en.User.ID, e, stepDetails)
	})
}

// AcceptWaiver records the waiver's acceptance.
func (s *Service) AcceptWaiver(ctx context.Context, en *Entry, accepted bool) error {
	if !accepted {
		return errs.Fields(map[string]string{"accept": "Tick the box to accept the waiver; you cannot run without it."})
	}
	return s.onOpen(ctx, en, stepWaiver, false, func(ctx context.Context, tx *db.Tx) error {
		return s.store.AcceptWaiver(ctx, tx, en.Hold.ID, en.User.ID, s.now(), stepWaiver)
	})
}

// Leave gives up the entry's open hold: its place goes back at once.
func (s *Service) Leave(ctx context.Context, en *Entry) error {
	if en.Hold.Status == checkout.Released {
		return nil
	}
	return s.db.WithTx(ctx, func(tx *db.Tx) error { return s.store.Release(ctx, tx, en.Hold.ID, en.User.ID) })
}

// payKey is the gateway's idempotency key of a hold's charge: one per
// attempt (checkout.Key).
func payKey(h *Hold) string { return checkout.Key("race", h.ID, h.Attempt) }

// Pay charges u's hold through the gateway with card and hands it to the
// writer. A retried submit (the same hold) never charges twice; a decline
// leaves the hold open (try another card); a gateway that does not answer
// leaves it paying, to be sent again (same key) or settled by the sweeper.
// The entry's hold is updated to what it now is: paid (or already paid or
// done), or open again after a decline.
//
// A payment sent again by the proxy, after the instance carrying it out
// died (in cluster mode), is not refused as a repeat (db.WithoutRequestKey):
// the hold's status and the charge's key make it safe, and it finishes what
// the first send left undone (the charge, or writing that it was paid).
func (s *Service) Pay(ctx context.Context, en *Entry, card, shown string) error {
	ctx = db.WithoutRequestKey(ctx)
	r, e, h, u := en.Race, en.Event, en.Hold, en.User
	switch {
	case h.Status == checkout.Paid || h.Status == checkout.Done:
		return nil
	case h.Step < stepWaiver:
		return ErrHoldMoved // the pages before first
	}
	if h.Expired(s.now()) {
		hadCode := h.CodeID != 0
		if err := s.renew(ctx, en.Event, h); err != nil {
			return err
		}
		switch {
		case h.Step < stepWaiver: // its store lines went back: choose again
			return ErrHoldMoved
		case hadCode && h.CodeID == 0: // its code's use went back: apply it again
			return errs.Fields(map[string]string{"code": "Your place ran out and was held again; the code went with the old hold. Apply it again."})
		}
	}
	if len(r.Items) > 0 && h.Status != checkout.Paying {
		var err error
		if h.Lines, err = s.store.Lines(ctx, h.ID); err != nil {
			return err
		}
	}
	amount := h.Owed(e)
	if shown != "" && shown != strconv.FormatInt(amount, 10) {
		return errTotalChanged // the page the runner paid from is stale
	}
	charge := pay.Charge{Key: payKey(h), Amount: amount, Currency: string(r.Currency), Method: card, Description: r.Name + " · " + e.Name}
	if amount > 0 {
		if err := charge.Check(); err != nil { // no card: the hold does not move
			return err
		}
	}
	// The charge and the writing of its outcome finish even if the runner
	// goes away: a charge must not be left without its hold moving.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), chargeTimeout)
	defer cancel()
	var ok bool
	err := s.batch.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
		var err error
		ok, err = s.store.StartPaying(ctx, tx, h, u.ID, e.Price, amount, s.now())
		return err
	})
	if err != nil {
		return err
	}
	if !ok {
		return s.notPaying(ctx, en)
	}
	h.Status, h.Amount = checkout.Paying, amount
	paymentID := ""
	if amount > 0 {
		p, out, err := checkout.Charge(ctx, s.pay, charge)
		switch out {
		case checkout.Declined:
			// Nothing was charged: the hold is open again for another card.
			if ferr := s.batch.Do(ctx, func(ctx context.Context, tx *db.Tx) error { return s.store.PaymentFailed(ctx, tx, h.ID, time.Time{}) }); ferr != nil {
				return ferr
			}
			h.Status, h.Attempt = checkout.Held, h.Attempt+1
			return pay.AsUser(err)
		case checkout.Unknown:
			return pay.AsUser(err) // left paying; the same key settles it
		}
		paymentID = p.ID
	}
	if err := s.writer.HandOff(ctx, h.ID, paymentID); err != nil {
		return err
	}
	h.Status, h.PaymentID = checkout.Paid, paymentID
	return nil
}

// PayWritten is Pay, then a wait of up to d for the registration to be
// written: whether it is. It listens before the hand-off, so the writer's
// news alone tells it, with no read of the registration (the rush's
// payment costs its statements in the cluster); a hold paid before this
// send (a submit sent again) is looked up, as its news may be past.
func (s *Service) PayWritten(ctx context.Context, en *Entry, card, shown string, d time.Duration) (bool, error) {
	h := en.Hold
	was := h.Status
	written, stop := s.writer.Listen(h.ID)
	defer stop()
	if err := s.Pay(ctx, en, card, shown); err != nil {
		return false, err
	}
	switch {
	case en.Hold.Status == checkout.Done:
		return true, nil
	case was == checkout.Paid || en.Hold != h: // handed off before: look
		reg, err := s.Written(ctx, h.ID, d)
		return reg != nil, err
	}
	return checkout.Wait(ctx, written, d)
}

// errTotalChanged: the amount to pay is not the one on the runner's page.
var errTotalChanged = errs.E(errs.Invalid, "The total has changed since this page was shown (in another window, or the price was changed). Check it and pay again.")

// notPaying says why a hold did not start paying: it moved on, or what its
// amount is made of changed between reading it and paying. en's hold and
// event are read again for the page that says so. A hold paid meanwhile
// (the same form sent again at once, whose other send paid it) is no
// error: en's hold is the paid one, and the runner goes where the other
// send went.
func (s *Service) notPaying(ctx context.Context, en *Entry) error {
	h, err := s.store.Hold(ctx, en.Hold.ID)
	if err != nil {
		return err
	}
	if h.Status == checkout.Paid || h.Status == checkout.Done {
		en.Hold = h
		return nil
	}
	if h.Status != checkout.Held {
		return ErrHoldMoved
	}
	e, err := s.store.Event(ctx, h.EventID)
	if err != nil {
		return err
	}
	if h.Lines, err = s.store.Lines(ctx, h.ID); err != nil {
		return err
	}
	en.Hold, en.Event = h, &e
	return errTotalChanged
}

// Written is hold id's registration, waiting up to d for it to be written
// (by this instance's writer or another's); nil if it is not yet.
func (s *Service) Written(ctx context.Context, id string, d time.Duration) (*Registration, error) {
	return checkout.Await(ctx, s.writer.Writer, id, d, func(ctx context.Context) (*Registration, error) { return s.registration(ctx, id) })
}

func (s *Service) registration(ctx context.Context, id string) (*Registration, error) {
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
