package race

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// refundKind is the job that refunds a cancelled registration's payment:
// written in the cancelling transaction, retried until the gateway
// answers, refunded once whatever the retries (the refund's key).
const refundKind = "race.refund"

type refundJob struct {
	Registration int64  `json:"registration"`
	Payment      string `json:"payment"`
}

// Cancel cancels registration id of the directed race: the place is free
// at once, and the payment is refunded by a job.
func (s *Service) Cancel(ctx context.Context, d *Directing, id int64) (Registration, error) {
	var reg Registration
	err := s.edit(ctx, d, func(tx *db.Tx) error {
		var err error
		reg, err = s.cancelIn(ctx, tx, d.Race.ID, id)
		return err
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
// and code use back) and queues the refund of what it paid; the caller
// raises the race's version and notifies the jobs after the commit.
func (s *Service) cancelIn(ctx context.Context, tx *db.Tx, raceID, id int64) (Registration, error) {
	reg, err := s.store.Cancel(ctx, tx, raceID, id, s.now())
	if err != nil || reg.Amount == 0 || reg.PaymentID == "" {
		return reg, err
	}
	if s.jobs == nil {
		return reg, errs.E(errs.Conflict, "Refunds are not available here.")
	}
	_, err = s.jobs.Enqueue(ctx, tx, refundKind, refundJob{Registration: reg.ID, Payment: reg.PaymentID})
	return reg, err
}

// refund is the refund job.
func (s *Service) refund(ctx context.Context, j *jobs.Job) error {
	var in refundJob
	if err := j.Decode(&in); err != nil {
		return err
	}
	rf, err := s.pay.Refund(ctx, in.Payment, 0, "race-refund-"+strconv.FormatInt(in.Registration, 10))
	if err != nil {
		if errors.Is(err, pay.ErrUnavailable) {
			return err // again later
		}
		var e *errs.Error
		if errors.As(err, &e) && e.Kind == errs.Conflict {
			return jobs.Permanent(err)
		}
		return err
	}
	return s.store.SetRefunded(ctx, in.Registration, rf.Amount)
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
