package checkout

import (
	"context"
	"fmt"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// Refunds are jobs: the job is written in the transaction that cancels the
// purchase (its stock given back there too), so the refund follows
// exactly when the cancellation commits; it runs until the gateway
// answers, and refunds once however often it runs (Refund's key). Its
// handler is the app's, as what a refund means to it (race: a notice and
// a mail to the runner) is its own:
//
//	q.Handle(checkout.RefundKind("rent"), func(ctx context.Context, j *jobs.Job) error {
//		id, rf, err := checkout.RunRefund(ctx, gw, "rent", j)
//		if err != nil {
//			return err
//		}
//		return store.Refunded(ctx, id, rf.Amount) // once: the job may run again
//	})

// RefundKind is the kind of app's refund jobs: "<app>.refund".
func RefundKind(app string) string { return app + ".refund" }

// refundJob is a refund job's payload.
type refundJob struct {
	Purchase int64  `json:"purchase,omitempty"`
	Payment  string `json:"payment"`
	Amount   int64  `json:"amount,omitempty"` // 0: all that is left
	// Registration is the purchase of race's refund jobs queued before
	// the checkout held refunds.
	Registration int64 `json:"registration,omitempty"`
}

// QueueRefund writes, in tx, app's job that refunds amount (0: all that is
// left) of payment for its purchase.
func QueueRefund(ctx context.Context, q *jobs.Queue, tx *db.Tx, app string, purchase int64, payment string, amount int64) error {
	if purchase == 0 || payment == "" || amount < 0 {
		return fmt.Errorf("checkout: a refund of %d on %q for purchase %d", amount, payment, purchase)
	}
	_, err := q.Enqueue(ctx, tx, RefundKind(app), refundJob{Purchase: purchase, Payment: payment, Amount: amount})
	return err
}

// RunRefund is the work of app's refund job j: it refunds through g
// (Refund), and returns the purchase and the refund for the app to record
// (once: the job runs again if it fails after the gateway answered). Its
// error is the job's: retried, or dead for good (jobs.Permanent).
func RunRefund(ctx context.Context, g pay.Gateway, app string, j *jobs.Job) (purchase int64, rf pay.Refund, err error) {
	var in refundJob
	if err := j.Decode(&in); err != nil {
		return 0, rf, err
	}
	if in.Purchase == 0 {
		in.Purchase = in.Registration
	}
	if in.Purchase == 0 || in.Payment == "" {
		return 0, rf, jobs.Permanent(fmt.Errorf("checkout: %s refund job %d names no purchase or payment", app, j.ID))
	}
	rf, err = Refund(ctx, g, app, in.Purchase, in.Payment, in.Amount)
	return in.Purchase, rf, err
}
