package race

import (
	"context"
	"log/slog"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/pubsub"
)

// writer is race's checkout.Writer: it turns paid holds into registrations
// in batches (Store.WritePaid, with bibs and the confirmation mails'
// outbox rows in the same transaction), and sweeps every
// checkout.DefaultEvery: expired holds' places back, then race's own
// periodic work (lotteries drawn, waiting lists invited, rehearsals'
// registrations refunded), then holds left paying settled with the
// gateway. What "done" means for a runner is race's; the hand-off, the
// batching, the sweeping and the "written" news between instances are
// the checkout's.
type writer struct{ *checkout.Writer }

// The writer's figures race's tests and the payment's limits use.
const (
	chargeTimeout = checkout.ChargeTimeout
	stalePaying   = checkout.StalePaying
)

// newWriter is svc's writer; also runs in each batch's transaction (the
// confirmation mails), after after each batch's commit (nil: nothing).
func newWriter(svc *Service, bus *pubsub.Bus, log *slog.Logger, also func(ctx context.Context, tx *db.Tx, regs []Registration) error,
	after func(regs []Registration)) *writer {
	return &writer{checkout.NewWriter(checkout.Config{
		App: "race", Gateway: svc.pay, Bus: bus, Log: log, Now: svc.now,
		// Embedded mode: this process charges every hold.
		Alone: svc.db.Dialect == db.SQLite,
		WritePaid: func(ctx context.Context, limit int, charged []checkout.HandedOff) ([]string, []string, error) {
			paid, regs, err := svc.store.WritePaid(ctx, limit, svc.now(), charged, func(tx *db.Tx, regs []Registration) error {
				if also == nil {
					return nil
				}
				return also(ctx, tx, regs)
			})
			if err != nil || len(regs) == 0 {
				return paid, nil, err
			}
			if after != nil {
				after(regs)
			}
			ids := make([]string, len(regs))
			for i, r := range regs {
				ids[i] = r.HoldID
			}
			return paid, ids, nil
		},
		ReleaseExpired: svc.store.ReleaseExpired,
		StalePaying: func(ctx context.Context, before time.Time, limit int) ([]checkout.Unsettled, error) {
			hs, err := svc.store.StalePaying(ctx, before, limit)
			out := make([]checkout.Unsettled, len(hs))
			for i, h := range hs {
				out[i] = paying(h)
			}
			return out, err
		},
		MarkPaid: func(ctx context.Context, id, payment string) error {
			return svc.batch.Do(ctx, func(ctx context.Context, tx *db.Tx) error {
				return svc.store.MarkPaid(ctx, tx, id, payment, svc.now())
			})
		},
		Declined: func(ctx context.Context, id string, before time.Time) error {
			return svc.db.WithTx(ctx, func(tx *db.Tx) error { return svc.store.PaymentFailed(ctx, tx, id, before) })
		},
		Sweep: svc.sweepOwn,
	})}
}

// paying is hold h as the checkout settles it.
func paying(h *Hold) checkout.Unsettled {
	return checkout.Unsettled{ID: h.ID, Key: payKey(h), Amount: h.Amount}
}

// sweepOwn is race's own work at each of the writer's sweeps: the lotteries
// that are due drawn, the waiting lists invited (the places that came
// back, a lottery's winners), rehearsals' registrations refunded.
func (s *Service) sweepOwn(ctx context.Context) {
	if n, err := s.waitlist.Draw(ctx, nil); err != nil {
		s.log.Error("race: drawing lotteries", "err", err)
	} else if n > 0 {
		s.log.Info("race: lotteries drawn", "events", n)
	}
	if n, err := s.waitlist.Invite(ctx); err != nil {
		s.log.Error("race: inviting from the waiting lists", "err", err)
	} else if n > 0 {
		s.log.Info("race: invited from the waiting lists", "n", n)
	}
	if n, err := s.sweepRehearsals(ctx); err != nil {
		s.log.Error("race: refunding rehearsals' registrations", "err", err)
	} else if n > 0 {
		s.log.Info("race: rehearsals' registrations refunded", "n", n)
	}
}

// sweep runs one of the writer's sweeps now (tests).
func (w *writer) sweep() { w.Sweep(context.Background()) }

// Sweep runs one of the writer's sweeps now and returns when it is done:
// expired holds released, lotteries drawn, waiting lists invited,
// rehearsals' registrations refunded, stale payments settled. The writer
// sweeps every 10 s by itself; tests call this instead of waiting.
func (s *Service) Sweep(ctx context.Context) { s.writer.Sweep(ctx) }
