package checkout_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// gateway answers every charge and find with err (nil: a payment under
// the key), and counts the charges sent.
type gateway struct {
	err     error
	charges int
	keys    []string // the refunds' keys
}

func (g *gateway) Name() string { return "fake" }
func (g *gateway) Charge(_ context.Context, c pay.Charge) (pay.Payment, error) {
	g.charges++
	if g.err != nil {
		return pay.Payment{}, g.err
	}
	return pay.Payment{ID: "pay_" + c.Key, Key: c.Key, Amount: c.Amount, Currency: c.Currency}, nil
}
func (g *gateway) Refund(_ context.Context, payment string, amount int64, key string) (pay.Refund, error) {
	g.keys = append(g.keys, key)
	if g.err != nil {
		return pay.Refund{}, g.err
	}
	return pay.Refund{ID: "re_" + key, PaymentID: payment, Amount: amount}, nil
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

func TestRefund(t *testing.T) {
	ctx := context.Background()
	refused := errs.E(errs.Conflict, "That is more than is left to refund.")
	for _, c := range []struct {
		err       error
		permanent bool
	}{
		{nil, false},
		{pay.ErrUnavailable, false},
		{fmt.Errorf("stripe: %w", pay.ErrUnavailable), false},
		{refused, true},
		{errors.New("connection reset"), false},
	} {
		g := &gateway{err: c.err}
		rf, err := checkout.Refund(ctx, g, "rent", 42, "pay_1", 1500)
		if !errors.Is(err, c.err) {
			t.Errorf("with %v: error %v", c.err, err)
		}
		if c.err == nil && (rf.PaymentID != "pay_1" || rf.Amount != 1500) {
			t.Errorf("refund = %+v; want 15.00 of pay_1", rf)
		}
		// A permanent error ends the job; any other runs it again.
		if got := fmt.Sprintf("%T", err) == "jobs.permanent"; got != c.permanent {
			t.Errorf("with %v: permanent %v; want %v", c.err, got, c.permanent)
		}
		if len(g.keys) != 1 || g.keys[0] != "rent-refund-42" {
			t.Errorf("keys %q; want [rent-refund-42]", g.keys)
		}
	}
}

// A refund job refunds its purchase's payment under the purchase's key,
// whether queued now or by race before the checkout held refunds (its
// payload named the purchase "registration"); a job that names no
// purchase is dead at once, refunding nothing.
func TestRunRefund(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		payload  string
		purchase int64
		amount   int64
	}{
		{`{"purchase":42,"payment":"pay_1"}`, 42, 0},
		{`{"purchase":42,"payment":"pay_1","amount":1500}`, 42, 1500},
		{`{"registration":7,"payment":"pay_1","amount":250}`, 7, 250},
	} {
		g := &gateway{}
		id, rf, err := checkout.RunRefund(ctx, g, "race", &jobs.Job{Kind: checkout.RefundKind("race"), Payload: []byte(c.payload)})
		if err != nil || id != c.purchase || rf.Amount != c.amount || rf.PaymentID != "pay_1" {
			t.Errorf("%s: %d, %+v, %v; want purchase %d refunded %d of pay_1", c.payload, id, rf, err, c.purchase, c.amount)
		}
		if want := "race-refund-" + fmt.Sprint(c.purchase); len(g.keys) != 1 || g.keys[0] != want {
			t.Errorf("%s: keys %q; want [%s]", c.payload, g.keys, want)
		}
	}
	g := &gateway{}
	if _, _, err := checkout.RunRefund(ctx, g, "race", &jobs.Job{Payload: []byte(`{"payment":"pay_1"}`)}); err == nil ||
		fmt.Sprintf("%T", err) != "jobs.permanent" || len(g.keys) != 0 {
		t.Errorf("a job with no purchase: %v, %d refunds; want a permanent error, none", err, len(g.keys))
	}
	if checkout.RefundKind("rent") != "rent.refund" {
		t.Errorf("RefundKind(rent) = %q", checkout.RefundKind("rent"))
	}
}
