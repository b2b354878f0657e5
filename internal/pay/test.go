package pay

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

//go:embed migrations
var migrations embed.FS

// Migrations is the test gateway's ledger.
var Migrations = db.EmbeddedMigrations("pay", migrations)

// The test gateway's cards (Charge.Method; spaces and dashes are ignored).
// Any other number that passes the Luhn check is paid, unless DeclineRate
// draws it (by its key: a charge sent again gets the same answer).
const (
	CardPaid              = "4242424242424242" // paid
	CardDeclined          = "4000000000000002" // card_declined
	CardInsufficientFunds = "4000000000009995" // insufficient_funds
	CardExpired           = "4000000000000069" // expired_card
	CardGatewayDown       = "4000000000000119" // ErrUnavailable; nothing charged
	CardAnswerLost        = "4000000000000259" // charged, but the answer is lost (ErrUnavailable); the same key again returns the payment
)

// Test is the built-in payment gateway: a stand-in for a payment
// processor, which cannot be reached from here. It keeps its ledger in the
// site's database (pay_test_payments), so that it outlives a crash as a
// processor's records would. It never stores a card number: only its last
// four digits.
type Test struct {
	DB          *db.DB
	DeclineRate float64          // share of other good numbers declined, 0 to 1
	Latency     time.Duration    // each call's wait, as a processor's round trip
	Now         func() time.Time // nil: time.Now
}

// Name implements Gateway.
func (t *Test) Name() string { return "test" }

// FindLag implements Gateway: the stand-in's record is current at once.
func (t *Test) FindLag() time.Duration { return 0 }

// MovesNoMoney implements Gateway: the stand-in never does.
func (t *Test) MovesNoMoney() bool { return true }

func (t *Test) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// wait is the processor's round trip; false: ctx ended first.
func (t *Test) wait(ctx context.Context) bool {
	if t.Latency <= 0 {
		return ctx.Err() == nil
	}
	tm := time.NewTimer(t.Latency)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-tm.C:
		return true
	}
}

// Charge implements Gateway.
func (t *Test) Charge(ctx context.Context, c Charge) (Payment, error) {
	if err := c.Check(); err != nil {
		return Payment{}, err
	}
	if !t.wait(ctx) {
		return Payment{}, ErrUnavailable // nothing was sent
	}
	card := cardDigits(c.Method)
	masked := mask(card)
	outcome := t.decide(card, c.Key)
	if outcome == "down" {
		return Payment{}, ErrUnavailable
	}
	now := t.now()
	id, err := newID()
	if err != nil {
		return Payment{}, err
	}
	kept := outcome // what the ledger keeps: a lost answer was paid
	if kept == "lost" {
		kept = "paid"
	}
	if _, err := t.DB.Exec(ctx, `INSERT INTO pay_test_payments (id, idem_key, amount, currency, method, outcome, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (idem_key) DO NOTHING`,
		id, c.Key, c.Amount, c.Currency, masked, kept, now.UnixMilli()); err != nil {
		return Payment{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	// The key's row: ours, or an earlier or concurrent send's (a replay).
	p, err := ledgerRow(ctx, t.DB, "idem_key", c.Key)
	if err != nil {
		return Payment{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if outcome == "lost" && p.ID == id {
		return Payment{}, ErrUnavailable
	}
	return replay(c, masked, p)
}

// Find implements Gateway.
func (t *Test) Find(ctx context.Context, key string) (Payment, error) {
	if !t.wait(ctx) {
		return Payment{}, ErrUnavailable
	}
	p, err := ledgerRow(ctx, t.DB, "idem_key", key)
	switch {
	case errors.Is(err, errs.ErrNotFound):
		return Payment{}, ErrNoCharge
	case err != nil:
		return Payment{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if code, ok := strings.CutPrefix(p.outcome, "declined:"); ok {
		return Payment{}, declined(code)
	}
	return p.Payment, nil
}

// replay answers a charge from the ledger's row for its key.
func replay(c Charge, masked string, p row) (Payment, error) {
	if p.Amount != c.Amount || p.Currency != c.Currency || p.method != masked {
		return Payment{}, ErrKeyReused
	}
	if code, ok := strings.CutPrefix(p.outcome, "declined:"); ok {
		return Payment{}, declined(code)
	}
	return p.Payment, nil
}

// row is a ledger row.
type row struct {
	Payment
	method, outcome string
}

// ledgerRow reads the row whose col (id or idem_key) is v.
func ledgerRow(ctx context.Context, q db.Querier, col, v string) (row, error) {
	var p row
	var created int64
	err := db.Scan(q.QueryRow(ctx, `SELECT id, idem_key, amount, refunded, currency, method, outcome, created_at
		FROM pay_test_payments WHERE `+col+` = ?`, v),
		&p.ID, &p.Key, &p.Amount, &p.Refunded, &p.Currency, &p.method, &p.outcome, &created)
	p.Created = time.UnixMilli(created).UTC()
	return p, err
}

// decide is a card's outcome: paid, lost (paid, answer lost), down, or
// declined:CODE.
func (t *Test) decide(card, key string) string {
	switch card {
	case CardPaid:
		return "paid"
	case CardDeclined:
		return "declined:card_declined"
	case CardInsufficientFunds:
		return "declined:insufficient_funds"
	case CardExpired:
		return "declined:expired_card"
	case CardGatewayDown:
		return "down"
	case CardAnswerLost:
		return "lost"
	}
	if !luhn(card) {
		return "declined:incorrect_number"
	}
	if t.DeclineRate > 0 {
		h := fnv.New64a()
		h.Write([]byte(key))
		if float64(h.Sum64()%1_000_000)/1_000_000 < t.DeclineRate {
			return "declined:card_declined"
		}
	}
	return "paid"
}

// declined is the payer's message for a decline code.
func declined(code string) *Declined {
	msg := map[string]string{
		"card_declined":      "Your card was declined. Try another card.",
		"insufficient_funds": "Your card has insufficient funds. Try another card.",
		"expired_card":       "Your card has expired. Try another card.",
		"incorrect_number":   "That card number is not valid. Check it and try again.",
	}[code]
	if msg == "" {
		msg = "Your card was declined. Try another card."
	}
	return &Declined{Code: code, Message: msg}
}

// Refund implements Gateway.
func (t *Test) Refund(ctx context.Context, paymentID string, amount int64, key string) (Refund, error) {
	if key == "" || len(key) > maxKey || amount < 0 {
		return Refund{}, fmt.Errorf("pay: refund of %d with a key of %d bytes", amount, len(key))
	}
	if !t.wait(ctx) {
		return Refund{}, ErrUnavailable
	}
	r := Refund{ID: "re_" + key, PaymentID: paymentID}
	err := t.DB.WithTx(ctx, func(tx *db.Tx) error {
		p, err := ledgerRow(ctx, tx, "id", paymentID)
		if err != nil {
			return err
		}
		if p.outcome != "paid" {
			return errs.E(errs.Conflict, "That payment was not made, so it cannot be refunded.")
		}
		var done string
		err = db.Scan(tx.QueryRow(ctx, "SELECT payment_id, amount FROM pay_test_refunds WHERE idem_key = ?", key), &done, &r.Amount)
		switch {
		case err == nil && done != paymentID:
			return ErrKeyReused
		case err == nil:
			return nil // refunded already under this key
		case !errors.Is(err, errs.ErrNotFound):
			return err
		}
		left := p.Amount - p.Refunded
		if amount == 0 {
			amount = left
		}
		if amount > left || amount == 0 {
			return errs.E(errs.Conflict, "That is more than is left to refund.")
		}
		if _, err := tx.Exec(ctx, "INSERT INTO pay_test_refunds (idem_key, payment_id, amount, created_at) VALUES (?, ?, ?, ?)",
			key, paymentID, amount, t.now().UnixMilli()); err != nil {
			return err
		}
		r.Amount = amount
		_, err = tx.Exec(ctx, "UPDATE pay_test_payments SET refunded = refunded + ? WHERE id = ?", amount, paymentID)
		return err
	})
	if err != nil {
		return Refund{}, err
	}
	return r, nil
}

// Paid lists the payments made (refunded or not), oldest first: what a
// crash test matches against what was bought.
func (t *Test) Paid(ctx context.Context) ([]Payment, error) {
	rows, err := t.DB.Query(ctx, `SELECT id, idem_key, amount, refunded, currency, created_at FROM pay_test_payments
		WHERE outcome = 'paid' ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Payment
	for rows.Next() {
		var p Payment
		var created int64
		if err := rows.Scan(&p.ID, &p.Key, &p.Amount, &p.Refunded, &p.Currency, &created); err != nil {
			return nil, err
		}
		p.Created = time.UnixMilli(created).UTC()
		out = append(out, p)
	}
	return out, rows.Err()
}

// mask keeps a card number's last four digits.
func mask(card string) string {
	if len(card) <= 4 {
		return "****"
	}
	return "****" + card[len(card)-4:]
}

// luhn reports whether s is 12 to 19 digits with a valid check digit.
func luhn(s string) bool {
	if len(s) < 12 || len(s) > 19 {
		return false
	}
	sum := 0
	for i := range len(s) {
		d := int(s[len(s)-1-i] - '0')
		if d < 0 || d > 9 {
			return false
		}
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

func newID() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "pay_" + base64.RawURLEncoding.EncodeToString(b), nil
}
