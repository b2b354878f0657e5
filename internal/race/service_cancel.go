package race

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
)

// refundKind is the job that refunds a cancelled registration's payment
// (checkout.QueueRefund): written in the cancelling transaction, retried
// until the gateway answers, refunded once whatever the retries.
var refundKind = checkout.RefundKind("race")

// CancelPreview is what cancelling registration id of the directed race
// would do, for the page that asks first: the registration (not found if
// it is not this race's), its event, and the refund it would get.
type CancelPreview struct {
	Registration
	EventName string
	Refund    int64 // what goes back to the runner's card
}

// PreviewCancel is the confirmation page's CancelPreview; a cancelled
// registration is a conflict.
func (s *Service) PreviewCancel(ctx context.Context, d *Directing, id int64) (CancelPreview, error) {
	var p CancelPreview
	reg, err := s.store.Registration(ctx, d.Race.ID, id)
	if errors.Is(err, errs.ErrNotFound) {
		return p, errs.E(errs.NotFound, "There is no such registration.")
	}
	if err != nil {
		return p, err
	}
	if reg.Status != "confirmed" {
		return p, errCancelledAlready
	}
	p.Registration = reg
	if e, ok := d.Race.Event(reg.EventID); ok {
		p.EventName = e.Name
	}
	if reg.PaymentID != "" {
		p.Refund = reg.Amount
	}
	return p, nil
}

// Cancel cancels registration id of the directed race: the place is free
// at once, the payment is refunded by a job, and the runner is told (a
// notice and a mail, in the same transaction).
func (s *Service) Cancel(ctx context.Context, d *Directing, id int64) (Registration, error) {
	var reg Registration
	err := s.edit(ctx, d, func(tx *db.Tx) error {
		var err error
		if reg, err = s.cancelIn(ctx, tx, d.Race.ID, id); err != nil {
			return err
		}
		event := ""
		if e, ok := d.Race.Event(reg.EventID); ok {
			event = e.Name
		}
		body := "Hello " + reg.FirstName + ",\n\nYour registration for " + d.Race.Name + ", " + event + " (bib " + strconv.Itoa(reg.Bib) +
			") was cancelled by the race's director. Your place is given up: there is no bib for you on race day."
		if reg.Amount > 0 && reg.PaymentID != "" {
			body += "\n\nYour payment of " + checkout.Of(reg.Amount, d.Race.Currency).Price() + " is refunded in full to the card you paid with; " +
				"another message tells you when the refund is done."
		}
		return s.notify(ctx, tx, Notice{UserID: reg.UserID, RaceID: d.Race.ID, EventID: reg.EventID, RegistrationID: reg.ID,
			Subject: "Registration cancelled: " + d.Race.Name + " · " + event, Body: body}, reg.Email, "")
	})
	if errors.Is(err, errs.ErrNotFound) {
		return reg, errs.E(errs.NotFound, "There is no such registration.")
	}
	if err == nil && s.jobs != nil {
		s.jobs.Notify()
	}
	return reg, err
}

// cancelIn cancels registration id of race in tx (its place, store units
// and code use back) and queues the refund of all it paid; the caller
// raises the race's version and notifies the jobs after the commit.
func (s *Service) cancelIn(ctx context.Context, tx *db.Tx, raceID, id int64) (Registration, error) {
	return s.cancelRefunding(ctx, tx, raceID, id, 100)
}

// cancelRefunding is cancelIn refunding percent of what was paid (Share;
// 0: nothing).
func (s *Service) cancelRefunding(ctx context.Context, tx *db.Tx, raceID, id int64, percent int) (Registration, error) {
	reg, err := s.store.Cancel(ctx, tx, raceID, id, s.now())
	if err != nil || reg.PaymentID == "" || Share(reg.Amount, percent) == 0 {
		return reg, err
	}
	if s.jobs == nil {
		return reg, errs.E(errs.Conflict, "Refunds are not available here.")
	}
	amount := int64(0) // all that was paid
	if percent < 100 {
		amount = Share(reg.Amount, percent)
	}
	return reg, checkout.QueueRefund(ctx, s.jobs, tx, "race", reg.ID, reg.PaymentID, amount)
}

// refund is the refund job: the registration's payment refunded
// (checkout.RunRefund), then recorded and told.
func (s *Service) refund(ctx context.Context, j *jobs.Job) error {
	id, rf, err := checkout.RunRefund(ctx, s.pay, "race", j)
	if err != nil {
		return err // again later, or refused for good (jobs.Permanent)
	}
	return s.refunded(ctx, id, rf.Amount)
}

// refunded records what was given back on registration id and tells its
// runner (once: a refund job run again finds it recorded).
func (s *Service) refunded(ctx context.Context, id, amount int64) error {
	return s.db.WithTx(ctx, func(tx *db.Tx) error {
		reg, race, event, currency, err := s.store.SetRefunded(ctx, tx, id, amount)
		if err != nil || reg.ID == 0 {
			return err // or recorded already, or the registration is gone with its account
		}
		return s.notify(ctx, tx, Notice{UserID: reg.UserID, RaceID: reg.RaceID, EventID: reg.EventID, RegistrationID: id,
			Subject: "Refund done: " + race + " · " + event,
			Body: "Hello " + reg.FirstName + ",\n\n" + checkout.Of(amount, currency).Price() + " for your cancelled registration for " + race + ", " + event +
				" was refunded to the card you paid with. Your bank may take a few days to show it."}, reg.Email, "")
	})
}

// CheckIn marks registration id of d's race as its bib picked up now, or
// (undo) not picked up: the race-day check-in list. It changes nothing a
// cached page shows, so the race's version stays.
func (s *Service) CheckIn(ctx context.Context, d *Directing, id int64, undo bool) (Registration, error) {
	var at *time.Time
	if !undo {
		now := s.now()
		at = &now
	}
	var reg Registration
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		var err error
		reg, err = s.store.CheckIn(ctx, tx, d.Race.ID, id, at)
		return err
	})
	if errors.Is(err, errs.ErrNotFound) {
		return reg, errs.E(errs.NotFound, "There is no such registration.")
	}
	return reg, err
}
