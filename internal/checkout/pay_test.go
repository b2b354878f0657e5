package checkout_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/pay"
)

// gateway answers every charge and find with err (nil: a payment under
// the key), and counts the charges sent.
type gateway struct {
	err     error
	charges int
}

func (g *gateway) Name() string { return "fake" }
func (g *gateway) Charge(_ context.Context, c pay.Charge) (pay.Payment, error) {
	g.charges++
	if g.err != nil {
		return pay.Payment{}, g.err
	}
	return pay.Payment{ID: "pay_" + c.Key, Key: c.Key, Amount: c.Amount, Currency: c.Currency}, nil
}
func (g *gateway) Refund(context.Context, string, int64, string) (pay.Refund, error) {
	return pay.Refund{}, errors.New("not here")
}
func (g *gateway) Find(_ context.Context, key string) (pay.Payment, error) {
	if g.err != nil {
		return pay.Payment{}, g.err
	}
	return pay.Payment{ID: "pay_" + key, Key: key}, nil
}
func (g *gateway) FindLag() time.Duration { return 0 }
func (g *gateway) MovesNoMoney() bool     { return true }

func TestKey(t *testing.T) {
	if got := checkout.Key("race", "h1", 0); got != "race-h1-0" {
		t.Errorf("Key = %q; want race-h1-0", got)
	}
	if checkout.Key("rent", "o7", 1) == checkout.Key("rent", "o7", 2) {
		t.Error("two attempts share a key")
	}
}

func TestChargeAndSettleOutcomes(t *testing.T) {
	ctx := context.Background()
	declined := &pay.Declined{Code: "card_declined", Message: "Your card was declined."}
	for _, c := range []struct {
		err            error
		charge, settle checkout.Outcome
	}{
		{nil, checkout.Charged, checkout.Charged},
		{declined, checkout.Declined, checkout.Declined},
		{fmt.Errorf("stripe: %w", declined), checkout.Declined, checkout.Declined},
		{pay.ErrUnavailable, checkout.Unknown, checkout.Unknown},
		{context.DeadlineExceeded, checkout.Unknown, checkout.Unknown},
		// No charge under the key: final when settling (the gateway's
		// record caught up), never an answer to a charge.
		{pay.ErrNoCharge, checkout.Unknown, checkout.Declined},
		{pay.ErrKeyReused, checkout.Unknown, checkout.Unknown},
	} {
		g := &gateway{err: c.err}
		p, out, err := checkout.Charge(ctx, g, pay.Charge{Key: "race-h-0", Amount: 4500, Currency: "usd", Method: pay.CardPaid})
		if out != c.charge || !errors.Is(err, c.err) || (out == checkout.Charged) != (p.ID == "pay_race-h-0") {
			t.Errorf("Charge with %v = %+v, %v, %v; want outcome %v", c.err, p, out, err, c.charge)
		}
		p, out, err = checkout.Settle(ctx, g, "race-h-0")
		if out != c.settle || !errors.Is(err, c.err) || (out == checkout.Charged) != (p.ID == "pay_race-h-0") {
			t.Errorf("Settle with %v = %+v, %v, %v; want outcome %v", c.err, p, out, err, c.settle)
		}
		if g.charges != 1 {
			t.Errorf("with %v: %d charges sent; want 1 (Settle charges nothing)", c.err, g.charges)
		}
	}
}
