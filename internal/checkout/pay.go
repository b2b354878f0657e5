package checkout

import (
	"context"
	"errors"
	"strconv"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// A purchase is charged through a pay.Gateway under an idempotency key
// per attempt (Key): a charge sent again under its key (a retried
// submit, a request that timed out, an instance that died between
// charging and storing) answers the first outcome and charges nothing
// more. Its outcome moves the purchase: Charged to paid, Declined back
// to held (the next attempt gets a new key), Unknown leaves it paying,
// for the same key to be sent again or for a sweeper to Settle once the
// gateway's record has caught up (Gateway.FindLag).

// Key is the idempotency key of a purchase's charge: app's purchase id
// and its attempt (the declined charges so far): "race-<hold>-0". One key
// per attempt, as a gateway answers a key sent again with its first
// outcome: a declined card's key would answer the next card with the
// decline.
func Key(app, purchase string, attempt int) string {
	return app + "-" + purchase + "-" + strconv.Itoa(attempt)
}

// Outcome is what became of a charge.
type Outcome int

const (
	// Unknown: the gateway did not answer, or cannot tell now; the charge
	// may have been made. The purchase stays paying.
	Unknown Outcome = iota
	// Charged: the money was taken; the purchase moves to paid.
	Charged
	// Declined: nothing was taken (the card was refused, or no charge was
	// ever made under the key); the purchase is held again.
	Declined
)

// Charge sends c (its Key from Key) through g and says what became of it,
// with the payment when Charged and the gateway's error otherwise
// (pay.AsUser tells it to the payer).
func Charge(ctx context.Context, g pay.Gateway, c pay.Charge) (pay.Payment, Outcome, error) {
	p, err := g.Charge(ctx, c)
	return p, outcome(err, false), err
}

// Settle asks g what became of the charge under key, whose answer was
// lost (its process died between charging and storing, or the gateway
// never answered), without charging: Charged with the payment, Declined
// if it was refused or never made, Unknown (with the error) if the
// gateway cannot tell now: ask again later. Only a purchase left paying
// for longer than g.FindLag may take ErrNoCharge as final, so the caller
// settles only those.
func Settle(ctx context.Context, g pay.Gateway, key string) (pay.Payment, Outcome, error) {
	p, err := g.Find(ctx, key)
	return p, outcome(err, true), err
}

func outcome(err error, found bool) Outcome {
	var dec *pay.Declined
	switch {
	case err == nil:
		return Charged
	case errors.As(err, &dec), found && errors.Is(err, pay.ErrNoCharge):
		return Declined
	}
	return Unknown
}

// Refund gives back amount (0: all that is left) of payment through g,
// under the key "<app>-refund-<purchase>": once per purchase, however
// often a job runs it again. Its error tells the job what to do next:
// nil, done (the refund rf); jobs.Permanent, the gateway refused it for
// good (a conflict: more than is left, a payment unknown); any other,
// the gateway did not answer: run again later, same key.
func Refund(ctx context.Context, g pay.Gateway, app string, purchase int64, payment string, amount int64) (pay.Refund, error) {
	rf, err := g.Refund(ctx, payment, amount, app+"-refund-"+strconv.FormatInt(purchase, 10))
	var e *errs.Error
	if err != nil && !errors.Is(err, pay.ErrUnavailable) && errors.As(err, &e) && e.Kind == errs.Conflict {
		return rf, jobs.Permanent(err)
	}
	return rf, err
}
