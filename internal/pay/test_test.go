package pay_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/pay"
)

func charge(key, card string, amount int64) pay.Charge {
	return pay.Charge{Key: key, Amount: amount, Currency: "usd", Method: card, Description: "race entry"}
}

func rows(t *testing.T, d *db.DB) int {
	t.Helper()
	var n int
	if err := db.Scan(d.QueryRow(context.Background(), "SELECT count(*) FROM pay_test_payments"), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTestGatewayCards(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		g := &pay.Test{DB: d}
		p, err := g.Charge(ctx, charge("reg-1", "4242 4242 4242 4242", 4500))
		if err != nil || p.ID == "" || p.Amount != 4500 || p.Currency != "usd" || p.Key != "reg-1" {
			t.Fatalf("the paying card: %+v %v", p, err)
		}
		for card, code := range map[string]string{
			pay.CardDeclined: "card_declined", pay.CardInsufficientFunds: "insufficient_funds",
			pay.CardExpired: "expired_card", "4242424242424241": "incorrect_number", "12ab": "incorrect_number",
		} {
			_, err := g.Charge(ctx, charge("reg-"+card, card, 4500))
			var dec *pay.Declined
			if !errors.As(err, &dec) || dec.Code != code || dec.Message == "" {
				t.Errorf("card %s: %v; want declined %s", card, err, code)
			}
		}
		if _, err := g.Charge(ctx, charge("reg-down", pay.CardGatewayDown, 4500)); !errors.Is(err, pay.ErrUnavailable) {
			t.Errorf("gateway down: %v; want ErrUnavailable", err)
		}
		// One row per decided charge: the paid one and five declines; the
		// charge the gateway never took left none.
		if n := rows(t, d); n != 6 {
			t.Errorf("%d rows in the ledger; want 6", n)
		}
		var method string
		if err := db.Scan(d.QueryRow(ctx, "SELECT method FROM pay_test_payments WHERE idem_key = 'reg-1'"), &method); err != nil || method != "****4242" {
			t.Errorf("stored method %q (%v); want only the last four digits", method, err)
		}
		for _, bad := range []pay.Charge{
			charge("", pay.CardPaid, 100), charge("k", pay.CardPaid, 0), charge("k", pay.CardPaid, -5),
			charge("k", pay.CardPaid, pay.MaxAmount+1), charge("k", "", 100), {Key: "k", Amount: 100, Currency: "dollars", Method: pay.CardPaid},
		} {
			if _, err := g.Charge(ctx, bad); err == nil {
				t.Errorf("%+v: charged; want refused", bad)
			}
		}
		if n := rows(t, d); n != 6 {
			t.Errorf("%d rows after refused charges; want still 6", n)
		}
		// Find tells each outcome without charging.
		if f, err := g.Find(ctx, "reg-1"); err != nil || f.ID != p.ID || f.Amount != 4500 {
			t.Errorf("Find of the paid charge: %+v %v; want %s", f, err, p.ID)
		}
		var dec *pay.Declined
		if _, err := g.Find(ctx, "reg-"+pay.CardDeclined); !errors.As(err, &dec) || dec.Code != "card_declined" {
			t.Errorf("Find of a decline: %v", err)
		}
		if _, err := g.Find(ctx, "reg-down"); !errors.Is(err, pay.ErrNoCharge) {
			t.Errorf("Find of a charge the gateway never took: %v; want ErrNoCharge", err)
		}
		if n := rows(t, d); n != 6 {
			t.Errorf("%d rows after Find; want still 6", n)
		}
	}, pay.Migrations)
}

// A charge sent again with its key charges once: sent one after another,
// sixteen at once, after an answer was lost; a key sent with another
// charge is refused.
func TestTestGatewayIdempotent(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		g := &pay.Test{DB: d, Latency: 2 * time.Millisecond}
		first, err := g.Charge(ctx, charge("reg-7", pay.CardPaid, 3000))
		if err != nil {
			t.Fatal(err)
		}
		again, err := g.Charge(ctx, charge("reg-7", pay.CardPaid, 3000))
		if err != nil || again.ID != first.ID {
			t.Errorf("sent again: %+v %v; want payment %s", again, err, first.ID)
		}
		if _, err := g.Charge(ctx, charge("reg-7", pay.CardPaid, 3100)); !errors.Is(err, pay.ErrKeyReused) {
			t.Errorf("the key with another amount: %v; want ErrKeyReused", err)
		}
		if _, err := g.Charge(ctx, charge("reg-7", "5555555555554444", 3000)); !errors.Is(err, pay.ErrKeyReused) {
			t.Errorf("the key with another card: %v; want ErrKeyReused", err)
		}
		var wg sync.WaitGroup
		ids := make([]string, 16)
		for i := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p, err := g.Charge(ctx, charge("reg-8", pay.CardPaid, 3000))
				if err != nil {
					t.Errorf("send %d: %v", i, err)
				}
				ids[i] = p.ID
			}()
		}
		wg.Wait()
		for _, id := range ids {
			if id != ids[0] {
				t.Errorf("sixteen sends at once got payments %v; want one", ids)
				break
			}
		}
		// The answer lost: charged, but the caller does not know; sending
		// again tells it, and charges nothing more.
		if _, err := g.Charge(ctx, charge("reg-9", pay.CardAnswerLost, 3000)); !errors.Is(err, pay.ErrUnavailable) {
			t.Fatalf("answer lost: %v; want ErrUnavailable", err)
		}
		p, err := g.Charge(ctx, charge("reg-9", pay.CardAnswerLost, 3000))
		if err != nil || p.ID == "" {
			t.Errorf("after the lost answer: %+v %v; want the payment", p, err)
		}
		// A decline is replayed too, not turned into a charge.
		_, err1 := g.Charge(ctx, charge("reg-10", pay.CardDeclined, 3000))
		_, err2 := g.Charge(ctx, charge("reg-10", pay.CardDeclined, 3000))
		var d1, d2 *pay.Declined
		if !errors.As(err1, &d1) || !errors.As(err2, &d2) || d1.Code != d2.Code {
			t.Errorf("a decline sent again: %v then %v; want the same decline", err1, err2)
		}
		paid, err := g.Paid(ctx)
		if err != nil || len(paid) != 3 {
			t.Errorf("paid: %d (%v); want 3 (reg-7, reg-8, reg-9)", len(paid), err)
		}
	}, pay.Migrations)
}

// A caller that gives up during the round trip charges nothing.
func TestTestGatewayHonoursTheContext(t *testing.T) {
	d := dbtest.Open(t, "", pay.Migrations)
	// A round trip of an hour: only the context can end the charge.
	g := &pay.Test{DB: d, Latency: time.Hour}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := g.Charge(ctx, charge("reg-1", pay.CardPaid, 100))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, pay.ErrUnavailable) {
			t.Errorf("timed out: %v; want ErrUnavailable", err)
		}
	case <-time.After(time.Minute): // a hang guard, not a budget
		t.Fatal("still charging a minute after the context ended")
	}
	if n := rows(t, d); n != 0 {
		t.Errorf("%d rows; want none", n)
	}
}

// DeclineRate declines about that share of good cards, the same way for
// a key every time.
func TestTestGatewayDeclineRate(t *testing.T) {
	d := dbtest.Open(t, "", pay.Migrations)
	g := &pay.Test{DB: d, DeclineRate: 0.3}
	ctx := context.Background()
	declined := 0
	const n = 400
	for i := range n {
		_, err := g.Charge(ctx, charge(fmt.Sprintf("rate-%d", i), "5555555555554444", 100))
		var dec *pay.Declined
		switch {
		case errors.As(err, &dec):
			declined++
			if _, again := g.Charge(ctx, charge(fmt.Sprintf("rate-%d", i), "5555555555554444", 100)); !errors.As(again, &dec) {
				t.Fatalf("key rate-%d: declined, then %v", i, again)
			}
		case err != nil:
			t.Fatal(err)
		}
	}
	if share := float64(declined) / n; share < 0.22 || share > 0.38 {
		t.Errorf("%d of %d declined (%.2f); want about 0.3", declined, n, share)
	}
}

func TestTestGatewayRefunds(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		g := &pay.Test{DB: d}
		p, err := g.Charge(ctx, charge("reg-1", pay.CardPaid, 5000))
		if err != nil {
			t.Fatal(err)
		}
		if r, err := g.Refund(ctx, p.ID, 2000, "refund-1"); err != nil || r.Amount != 2000 || r.PaymentID != p.ID {
			t.Errorf("partial refund: %+v %v", r, err)
		}
		if r, err := g.Refund(ctx, p.ID, 2000, "refund-1"); err != nil || r.Amount != 2000 {
			t.Errorf("the same refund again: %+v %v; want the same 2000", r, err)
		}
		if _, err := g.Refund(ctx, p.ID, 3500, "refund-2"); errs.KindOf(err) != errs.Conflict {
			t.Errorf("more than is left: %v; want a conflict", err)
		}
		if r, err := g.Refund(ctx, p.ID, 0, "refund-3"); err != nil || r.Amount != 3000 {
			t.Errorf("the rest: %+v %v; want 3000", r, err)
		}
		var refunded int64
		if err := db.Scan(d.QueryRow(ctx, "SELECT refunded FROM pay_test_payments WHERE id = ?", p.ID), &refunded); err != nil || refunded != 5000 {
			t.Errorf("refunded %d (%v); want all 5000", refunded, err)
		}
		if _, err := g.Refund(ctx, p.ID, 0, "refund-4"); errs.KindOf(err) != errs.Conflict {
			t.Errorf("a refunded payment again: %v; want a conflict", err)
		}
		if _, err := g.Refund(ctx, "pay_nope", 0, "refund-5"); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("an unknown payment: %v; want not found", err)
		}
		_, err = g.Charge(ctx, charge("reg-2", pay.CardDeclined, 5000))
		var dec *pay.Declined
		if !errors.As(err, &dec) {
			t.Fatal(err)
		}
	}, pay.Migrations)
}

func TestAsUser(t *testing.T) {
	dec := pay.AsUser(fmt.Errorf("charge: %w", &pay.Declined{Code: "card_declined", Message: "Your card was declined."}))
	if e := errs.As(dec); e.Kind != errs.Invalid || e.Fields["card"] == "" {
		t.Errorf("declined: %+v; want a field error on the card", e)
	}
	down := errs.As(pay.AsUser(pay.ErrUnavailable))
	if down.Kind != errs.TooMany || down.RetryAfter == 0 || !strings.Contains(down.Message, "try again") {
		t.Errorf("unavailable: %+v; want a 429 with Retry-After", down)
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want pay.Settings
		bad  bool
	}{
		{in: "", want: pay.Settings{Kind: "test"}},
		{in: "test:?decline=0.25&latency=300ms", want: pay.Settings{Kind: "test", DeclineRate: 0.25, Latency: 300 * time.Millisecond}},
		{in: "stripe://sk_test_1@api.stripe.com", want: pay.Settings{Kind: "stripe", SecretKey: "sk_test_1"}},
		{in: "stripe://sk_test_1@127.0.0.1:12111?secure=false", want: pay.Settings{Kind: "stripe", SecretKey: "sk_test_1", APIURL: "http://127.0.0.1:12111"}},
		{in: "test:?decline=2", bad: true},
		{in: "test:?latency=forever", bad: true},
		{in: "stripe://api.stripe.com", bad: true},
		{in: "paypal://x@y", bad: true},
	} {
		got, err := pay.Parse(c.in)
		if (err != nil) != c.bad || !c.bad && got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v (error: %v)", c.in, got, err, c.want, c.bad)
		}
		if err != nil && strings.Contains(err.Error(), "sk_test") {
			t.Errorf("Parse(%q): the error quotes the key: %v", c.in, err)
		}
	}
}
