package race

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Changes after registering (changes.go): the runner's own, under the
// race's rule, and the director's.

var (
	errStarted       = errs.E(errs.Conflict, "This event has started: the registration can no longer be cancelled.")
	errRefundChanged = errs.E(errs.Conflict, "The refund has changed since this page was shown (its date has passed, or the directors changed the rule). Check it and confirm again.")
)

// Own is a runner's registration as its own pages show it: what it is,
// and what they may still do with it at Now.
type Own struct {
	Registration
	Race  *Race
	Event *Event
	Now   time.Time
	// EditBy is until when its details may be changed; Paid is what a
	// cancellation's refund is a share of (nothing when it was free);
	// Percent is that share if cancelled now (cancelled: when it was, by
	// the rule), Refund its amount, RefundBy until when the rule's share
	// applies.
	EditBy, RefundBy time.Time
	Paid, Refund     int64
	Percent          int
}

// Confirmed reports whether the registration stands (not cancelled).
func (o *Own) Confirmed() bool { return o.Status == "confirmed" }

// CanEdit reports whether its runner may still change its details.
func (o *Own) CanEdit() bool { return o.Confirmed() && o.Now.Before(o.EditBy) }

// CanCancel reports whether its runner may still cancel it: until the
// event starts.
func (o *Own) CanCancel() bool { return o.Confirmed() && o.Now.Before(o.Event.StartsAt) }

// Own is the registration of en's hold, for its runner; not found if the
// hold is not written as one.
func (s *Service) Own(ctx context.Context, en *Entry) (*Own, error) {
	reg, err := s.registration(ctx, en.Hold.ID)
	if err != nil {
		return nil, err
	}
	if reg == nil {
		return nil, errNoEntry
	}
	return s.OwnOf(en, reg), nil
}

// OwnOf is Own of en's registration reg, read already.
func (s *Service) OwnOf(en *Entry, reg *Registration) *Own {
	o := &Own{Registration: *reg, Race: en.Race, Event: en.Event, Now: s.now()}
	o.EditBy, o.RefundBy = en.Race.EditDeadline(en.Event), en.Race.RefundDeadline(en.Event)
	if reg.PaymentID != "" {
		o.Paid = reg.Amount
	}
	at := o.Now
	if reg.CancelledAt != nil { // what its runner's cancellation refunded
		at = *reg.CancelledAt
	}
	o.Percent = en.Race.RefundPercentAt(en.Event, at)
	o.Refund = Share(o.Paid, o.Percent)
	return o
}

// ChangeOwn changes the details of en's registration as its runner typed
// them, until the race's cutoff; nothing is mailed (they made it).
func (s *Service) ChangeOwn(ctx context.Context, en *Entry, in ChangeInput) error {
	o, err := s.Own(ctx, en)
	if err != nil {
		return err
	}
	switch {
	case !o.Confirmed():
		return errCancelledAlready
	case !o.CanEdit():
		return errs.E(errs.Conflict, "Your details could be changed until %s (%s time); that has passed. Write to the race's directors if something is wrong.",
			when(o.EditBy, en.Race, "Monday 2 January 2006, 15:04"), en.Race.TZ)
	}
	c, f := in.Validate(en.Race)
	if len(f) > 0 {
		return errs.Fields(f)
	}
	return s.db.WithTx(ctx, func(tx *db.Tx) error {
		_, err := s.store.ChangeRegistration(ctx, tx, en.Race.ID, o.ID, en.User.ID, c, en.Race.Teams, s.now())
		return err
	})
}

// CancelOwn cancels en's registration for its runner, until the event
// starts, refunding the race's rule's share (shown: the refund in minor
// units as the confirmation page showed it; "" takes what it is now). The
// place is free at once (the waiting list's next runner is invited, as
// after a director's cancellation), and the runner is told by a notice
// and a mail. It returns the registration as cancelled, with its refund.
func (s *Service) CancelOwn(ctx context.Context, en *Entry, shown string) (*Own, error) {
	o, err := s.Own(ctx, en)
	if err != nil {
		return nil, err
	}
	switch {
	case !o.Confirmed():
		return o, errCancelledAlready
	case !o.CanCancel():
		return o, errStarted
	case shown != "" && shown != strconv.FormatInt(o.Refund, 10):
		return o, errRefundChanged
	}
	r, e := en.Race, en.Event
	err = s.editRace(ctx, r.ID, r.Slug, func(tx *db.Tx) error {
		reg, err := s.cancelRefunding(ctx, tx, r.ID, o.ID, o.Percent)
		if err != nil {
			return err
		}
		body := "Hello " + reg.FirstName + ",\n\nYou cancelled your registration for " + r.Name + ", " + e.Name + " (bib " + strconv.Itoa(reg.Bib) +
			"). Your place is given up: there is no bib for you on race day.\n\n" + refundSentence(o, r.Currency)
		return s.notify(ctx, tx, Notice{UserID: reg.UserID, RaceID: r.ID, EventID: e.ID, RegistrationID: reg.ID,
			Subject: "Registration cancelled: " + r.Name + " · " + e.Name, Body: body}, reg.Email, "")
	})
	if err != nil {
		return o, err
	}
	if s.jobs != nil {
		s.jobs.Notify()
	}
	s.mailed()
	o.Status = "cancelled"
	return o, nil
}

// refundSentence says what a cancellation of o gives back, and how.
func refundSentence(o *Own, currency checkout.Currency) string {
	switch {
	case o.Paid == 0:
		return "Nothing was paid, so nothing is refunded."
	case o.Refund == 0 && o.Race.Refund.Percent > 0:
		return "The race refunded cancellations until " + when(o.RefundBy, o.Race, "2 January 2006, 15:04") + " (" + o.Race.TZ +
			" time); after that there is no refund, so nothing is refunded."
	case o.Refund == 0:
		return "The race gives no refund for a cancellation, so nothing is refunded."
	}
	return refundText(o.Refund, o.Paid, o.Percent, currency) + " is refunded to the card you paid with; another message tells you when the refund is done."
}

// SetPolicy stores the form of what runners may change and the refund
// rule.
func (s *Service) SetPolicy(ctx context.Context, d *Directing, in PolicyInput) error {
	editUntil, rf, f := in.Validate(d.Race)
	if len(f) > 0 {
		return errs.Fields(f)
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.SetPolicy(ctx, tx, d.Race.ID, editUntil, rf) })
}

// CloseEvent closes event id's registration now (open: opens it again):
// the race page shows it at once.
func (s *Service) CloseEvent(ctx context.Context, d *Directing, id int64, open bool) error {
	if _, ok := d.Race.Event(id); !ok {
		return errs.ErrNotFound
	}
	var at *time.Time
	if !open {
		now := s.now()
		at = &now
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.SetClosed(ctx, tx, d.Race.ID, id, at) })
}

// Registrant is registration id of the directed race with its team's
// name, for the director's edit; not found if it is not this race's.
func (s *Service) Registrant(ctx context.Context, d *Directing, id int64) (Registration, error) {
	reg, err := s.store.Registration(ctx, d.Race.ID, id)
	if errors.Is(err, errs.ErrNotFound) {
		return reg, errs.E(errs.NotFound, "There is no such registration.")
	}
	if err == nil {
		reg.TeamName, err = teamName(ctx, s.db, reg.TeamID)
	}
	return reg, err
}

// EditRegistrant changes registration id's details as a director typed
// them; its runner is told what changed (a notice and a mail).
func (s *Service) EditRegistrant(ctx context.Context, d *Directing, id int64, in ChangeInput) error {
	c, f := in.Validate(d.Race)
	if len(f) > 0 {
		return errs.Fields(f)
	}
	told := false
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		was, err := s.store.ChangeRegistration(ctx, tx, d.Race.ID, id, 0, c, d.Race.Teams, s.now())
		if err != nil {
			return err
		}
		changes := changed(was, c, d.Race)
		if len(changes) == 0 {
			return nil
		}
		event := ""
		if e, ok := d.Race.Event(was.EventID); ok {
			event = e.Name
		}
		told = true
		return s.notify(ctx, tx, Notice{UserID: was.UserID, RaceID: d.Race.ID, EventID: was.EventID, RegistrationID: was.ID,
			Subject: "Your details changed: " + d.Race.Name + " · " + event,
			Body: "Hello " + c.FirstName + ",\n\nThe race's directors changed the details of your registration for " + d.Race.Name + ", " + event +
				" (bib " + strconv.Itoa(was.Bib) + ").\n\n" + strings.Join(changes, " ") +
				"\n\nIf something is wrong, write to the race's directors."}, was.Email, "")
	})
	if errors.Is(err, errs.ErrNotFound) {
		return errs.E(errs.NotFound, "There is no such registration.")
	}
	if told {
		s.mailed()
	}
	return err
}

// changed is what change c makes of registration was, a sentence each.
func changed(was Registration, c ChangeInput, r *Race) []string {
	var out []string
	if name, old := c.FirstName+" "+c.LastName, was.FirstName+" "+was.LastName; name != old {
		out = append(out, "Your name is now "+name+" (it was "+old+").")
	}
	if r.Shirts && c.Shirt != was.Shirt {
		out = append(out, "Your T-shirt size is now "+c.Shirt+" (it was "+orNone(was.Shirt, "none")+").")
	}
	if r.Teams && TeamKey(c.Team) != TeamKey(was.TeamName) {
		out = append(out, "Your team is now "+orNone(c.Team, "none: you run on your own")+" (it was "+orNone(was.TeamName, "none")+").")
	}
	return out
}
