package pay

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v83"
)

// Stripe charges through Stripe's PaymentIntents API (stripe-go), created
// and confirmed in one call with the charge's key as Stripe's
// Idempotency-Key. The Method is a PaymentMethod id that the payer's
// browser got from Stripe.js (the server never sees a card number).
type Stripe struct {
	c    *stripe.Client
	test bool // a test-mode key: no money moves
}

// NewStripe makes the gateway for secret key sk. url "" is Stripe's API;
// another (such as a stripe-mock's http://127.0.0.1:12111) replaces it.
// hc nil: stripe-go's client. stripe-go sends a request again after a
// network error, with the same key.
func NewStripe(sk, url string, hc *http.Client) *Stripe {
	cfg := &stripe.BackendConfig{HTTPClient: hc, EnableTelemetry: stripe.Bool(false), LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}}
	if url != "" {
		cfg.URL = stripe.String(url)
	}
	return &Stripe{c: stripe.NewClient(sk, stripe.WithBackends(stripe.NewBackendsWithConfig(cfg))), test: strings.HasPrefix(sk, "sk_test_")}
}

// FindLag implements Gateway: Find goes through Stripe's search, which
// shows a new intent within a minute as a rule but "up to an hour" late
// during an outage (Stripe's documentation), which is when answers are
// lost: an intent is taken as never made only an hour after its charge.
func (s *Stripe) FindLag() time.Duration { return time.Hour }

// MovesNoMoney implements Gateway: true for a test-mode key.
func (s *Stripe) MovesNoMoney() bool { return s.test }

// Name implements Gateway.
func (s *Stripe) Name() string { return "stripe" }

// Charge implements Gateway.
func (s *Stripe) Charge(ctx context.Context, c Charge) (Payment, error) {
	if err := c.Check(); err != nil {
		return Payment{}, err
	}
	method, err := s.method(c.Method)
	if err != nil {
		return Payment{}, err
	}
	p := &stripe.PaymentIntentCreateParams{
		Amount:        stripe.Int64(c.Amount),
		Currency:      stripe.String(c.Currency),
		PaymentMethod: stripe.String(method),
		Confirm:       stripe.Bool(true),
		Description:   stripe.String(c.Description),
		// No redirects: a card that needs the payer's bank to confirm is
		// declined here (authentication_required) rather than left half-done.
		AutomaticPaymentMethods: &stripe.PaymentIntentCreateAutomaticPaymentMethodsParams{
			Enabled: stripe.Bool(true), AllowRedirects: stripe.String("never"),
		},
	}
	p.SetIdempotencyKey(c.Key)
	p.AddMetadata("key", c.Key)
	pi, err := s.c.V1PaymentIntents.Create(ctx, p)
	if err != nil {
		return Payment{}, stripeErr(err)
	}
	switch pi.Status {
	case stripe.PaymentIntentStatusSucceeded, stripe.PaymentIntentStatusProcessing:
	case stripe.PaymentIntentStatusRequiresAction:
		return Payment{}, &Declined{Code: "authentication_required", Message: "Your bank asks to confirm this payment, which this page cannot do. Try another card."}
	default:
		return Payment{}, fmt.Errorf("pay: stripe payment intent %s is %s", pi.ID, pi.Status)
	}
	return Payment{ID: pi.ID, Key: c.Key, Amount: pi.Amount, Currency: string(pi.Currency), Created: time.Unix(pi.Created, 0).UTC()}, nil
}

// stripeTestCards are the card numbers Stripe documents for test mode, and
// the test PaymentMethods that stand for them: with a test key, a card
// number typed on the payment page (or sent by a rehearsal's simulated
// runners) pays as that card would.
var stripeTestCards = map[string]string{
	"4242424242424242": "pm_card_visa",
	"5555555555554444": "pm_card_mastercard",
	"4000000000000002": "pm_card_chargeDeclined",
	"4000000000009995": "pm_card_chargeDeclinedInsufficientFunds",
	"4000000000000069": "pm_card_chargeDeclinedExpiredCard",
}

// method is the PaymentMethod id to charge for what the payer sent: an id
// (Stripe.js's pm_...) as it is; a card number only in test mode, as the
// test PaymentMethod of a Stripe test card. A live key never sends a card
// number to Stripe's API: the number must not pass through this server.
func (s *Stripe) method(m string) (string, error) {
	digits := cardDigits(m)
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return m, nil // not a card number: a PaymentMethod id
	}
	if !s.test {
		return "", &Declined{Code: "card_number_refused", Message: "This site cannot take card payments yet: its Stripe card form is not set up. Nothing was charged."}
	}
	if pm, ok := stripeTestCards[digits]; ok {
		return pm, nil
	}
	return "", &Declined{Code: "incorrect_number", Message: "In Stripe's test mode, pay with one of Stripe's test cards, such as 4242 4242 4242 4242."}
}

// Find implements Gateway: the payment intent whose metadata carries key,
// through Stripe's search. Stripe's search lags new intents by up to a
// minute, so a caller settles a lost answer only minutes after the charge.
func (s *Stripe) Find(ctx context.Context, key string) (Payment, error) {
	if key == "" || len(key) > maxKey || strings.ContainsAny(key, `'\`) {
		return Payment{}, fmt.Errorf("pay: find with a key of %d bytes", len(key))
	}
	p := &stripe.PaymentIntentSearchParams{SearchParams: stripe.SearchParams{Query: "metadata['key']:'" + key + "'"}}
	p.Context = ctx
	var found *stripe.PaymentIntent
	for pi, err := range s.c.V1PaymentIntents.Search(ctx, p) {
		if err != nil {
			return Payment{}, stripeErr(err)
		}
		if pi.Metadata["key"] != key {
			continue
		}
		if found == nil || pi.Status == stripe.PaymentIntentStatusSucceeded {
			found = pi
		}
		break
	}
	switch {
	case found == nil:
		return Payment{}, ErrNoCharge
	case found.Status == stripe.PaymentIntentStatusSucceeded || found.Status == stripe.PaymentIntentStatusProcessing:
		return Payment{ID: found.ID, Key: key, Amount: found.Amount, Currency: string(found.Currency), Created: time.Unix(found.Created, 0).UTC()}, nil
	case found.Status == stripe.PaymentIntentStatusCanceled || found.Status == stripe.PaymentIntentStatusRequiresPaymentMethod:
		return Payment{}, declined("card_declined")
	}
	return Payment{}, fmt.Errorf("%w: stripe payment intent %s is %s", ErrUnavailable, found.ID, found.Status)
}

// Refund implements Gateway.
func (s *Stripe) Refund(ctx context.Context, paymentID string, amount int64, key string) (Refund, error) {
	if key == "" || len(key) > maxKey || amount < 0 {
		return Refund{}, fmt.Errorf("pay: refund of %d with a key of %d bytes", amount, len(key))
	}
	p := &stripe.RefundCreateParams{PaymentIntent: stripe.String(paymentID)}
	if amount > 0 {
		p.Amount = stripe.Int64(amount)
	}
	p.SetIdempotencyKey(key)
	r, err := s.c.V1Refunds.Create(ctx, p)
	if err != nil {
		return Refund{}, stripeErr(err)
	}
	return Refund{ID: r.ID, PaymentID: paymentID, Amount: r.Amount}, nil
}

// stripeErr maps Stripe's errors onto this package's: a card error is a
// decline, an idempotency error a reused key; Stripe's own failures and a
// network that did not answer are ErrUnavailable (the outcome unknown).
func stripeErr(err error) error {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	switch {
	case se.Type == stripe.ErrorTypeCard:
		code := string(se.DeclineCode)
		if code == "" {
			code = string(se.Code)
		}
		return declined(code)
	case se.Type == stripe.ErrorTypeIdempotency:
		return fmt.Errorf("%w: %s", ErrKeyReused, se.Msg)
	case se.Type == stripe.ErrorTypeAPI || se.HTTPStatusCode >= 500 || se.HTTPStatusCode == http.StatusTooManyRequests:
		return fmt.Errorf("%w: stripe: %s", ErrUnavailable, se.Msg)
	}
	return fmt.Errorf("pay: stripe refused the request (%s %s): %s", se.Type, se.Code, se.Msg)
}
