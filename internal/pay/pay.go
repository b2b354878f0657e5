// Package pay charges and refunds through a payment gateway, for every app
// that takes money (race's registrations, rent's checkout).
//
// A Gateway charges once per idempotency key: a charge sent again with
// the same key (a retried submit, a request that timed out and is tried
// again, an instance that died between charging and answering) returns
// the first charge's outcome and charges nothing more. An app keys a
// charge by what it pays for (a registration), so that a charge without
// a stored purchase can be found and matched, and a purchase is never
// paid twice.
//
// Two gateways: Test, built in and the embedded default, a stand-in for a
// payment processor (none can be reached from here) with documented test
// card numbers, a decline rate and a latency; and Stripe, through
// stripe-go, tested against stripe-mock.
package pay

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Gateway is a payment processor.
type Gateway interface {
	// Name names the gateway in logs and on the operator's pages.
	Name() string
	// Charge takes c.Amount from c.Method, once per c.Key.
	Charge(ctx context.Context, c Charge) (Payment, error)
	// Refund gives back amount (0: all that is left) of a payment, once
	// per key.
	Refund(ctx context.Context, paymentID string, amount int64, key string) (Refund, error)
	// Find is the outcome of the charge made under key, without making
	// one: the Payment; a *Declined; ErrNoCharge if none was made; or
	// ErrUnavailable if the gateway cannot tell now. It is how a purchase
	// whose charge's answer was lost (a crash between charging and
	// storing) is settled later.
	Find(ctx context.Context, key string) (Payment, error)
	// FindLag is how long after a charge Find may still not see it: its
	// ErrNoCharge is final only for a charge begun longer ago.
	FindLag() time.Duration
	// MovesNoMoney reports whether the gateway is in a test mode, where
	// test cards are accepted and nothing is really charged: a load
	// rehearsal's simulated runners pay only through such a gateway.
	MovesNoMoney() bool
}

// Refund is money given back.
type Refund struct {
	ID        string
	PaymentID string
	Amount    int64 // what this refund gave back
}

// Charge is a charge to make.
type Charge struct {
	Key         string // idempotency key: one charge per key, however often sent
	Amount      int64  // in the currency's minor unit (cents)
	Currency    string // ISO 4217, lower case: "usd", "eur"
	Method      string // what pays: a test card number or token (Test), a PaymentMethod id (Stripe)
	Description string // shown on the payer's statement and the operator's pages
}

// Payment is a charge made, as the gateway knows it.
type Payment struct {
	ID       string
	Key      string
	Amount   int64
	Refunded int64
	Currency string
	Created  time.Time
}

// Limits on what a charge may ask.
const (
	MaxAmount = 1_000_000_00 // a million in major units: far past any entry fee or rental
	maxKey    = 255
)

// Check refuses a charge that no gateway should be sent.
func (c Charge) Check() error {
	switch {
	case c.Key == "" || len(c.Key) > maxKey:
		return fmt.Errorf("pay: idempotency key of %d bytes", len(c.Key))
	case c.Amount <= 0 || c.Amount > MaxAmount:
		return errs.E(errs.Invalid, "The amount to pay is not valid.")
	case len(c.Currency) != 3:
		return errs.E(errs.Invalid, "The currency is not valid.")
	case c.Method == "":
		return errs.Fields(map[string]string{"card": "Enter a card number."})
	}
	return nil
}

// Declined is a charge the card's issuer refused: nothing was taken. Its
// Message is safe to show the payer.
type Declined struct {
	Code    string // card_declined, insufficient_funds, expired_card, incorrect_number, ...
	Message string
}

func (d *Declined) Error() string { return "pay: declined (" + d.Code + "): " + d.Message }

// ErrUnavailable is a gateway that did not answer in time or failed: the
// charge may or may not have been made. Send it again with the same key
// to learn which (and to make it, once, if it was not).
var ErrUnavailable = errors.New("pay: the payment gateway did not answer")

// ErrNoCharge is Find's answer for a key under which nothing was charged.
var ErrNoCharge = errors.New("pay: no charge under that key")

// ErrKeyReused is a key sent again with a different charge, never a second
// charge: a payer who sends the purchase again with another card while the
// first one's answer is still outstanding (AsUser says so), or a bug.
var ErrKeyReused = errors.New("pay: idempotency key reused for a different charge")

// AsUser turns a gateway error into what the payer is told.
func AsUser(err error) error {
	var d *Declined
	switch {
	case err == nil:
		return nil
	case errors.As(err, &d):
		return &errs.Error{Kind: errs.Invalid, Message: d.Message, Fields: map[string]string{"card": d.Message}, Err: err}
	case errors.Is(err, ErrKeyReused):
		return &errs.Error{Kind: errs.Conflict, Message: "Your payment with the card you used first is still being confirmed. Pay again with that card, or wait a minute and reload this page: you will not be charged twice.", Err: err}
	case errors.Is(err, ErrUnavailable):
		return &errs.Error{Kind: errs.TooMany, Message: "The payment service did not answer. Please try again in a moment; you will not be charged twice.",
			RetryAfter: 5 * time.Second, Err: err}
	}
	return err
}

// cardDigits is a card number as typed, without its spaces and dashes.
func cardDigits(s string) string { return cardSeparators.Replace(s) }

var cardSeparators = strings.NewReplacer(" ", "", "-", "")

// TakesCardNumbers reports whether g can charge a card number typed on a
// payment page. A live Stripe key cannot: it needs an id from Stripe.js's
// card form, which the pages do not have yet.
func TakesCardNumbers(g Gateway) bool {
	s, ok := g.(*Stripe)
	return !ok || s.test
}
