package pay_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/pay"
)

// startStripeMock runs the stripe-mock binary named by
// TUTTI_TEST_STRIPE_MOCK (go install github.com/stripe/stripe-mock@v0.203.0,
// as .ci/run does), with
// testdata/stripe-fixtures.json: stripe-mock's own fixtures for payment
// intents and refunds, the intent's status set to succeeded (stripe-mock
// keeps no state, so a confirmed intent would otherwise come back
// requires_payment_method), on a port from 127.0.0.1:0. Skipped without
// the variable.
func startStripeMock(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("TUTTI_TEST_STRIPE_MOCK")
	if bin == "" {
		t.Skip("TUTTI_TEST_STRIPE_MOCK not set (the stripe-mock binary)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-http-addr", addr, "-https-addr", "127.0.0.1:0", "-fixtures", "testdata/stripe-fixtures.json")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
	}
	t.Fatalf("stripe-mock did not listen on %s", addr)
	return ""
}

// seen is a request to Stripe as it left the gateway.
type seen struct {
	path, key string
	form      url.Values
}

// recorder stands between the gateway and a server and keeps what it sent.
func recorder(t *testing.T, target string) (string, func() []seen) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []seen
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		mu.Lock()
		got = append(got, seen{r.URL.Path, r.Header.Get("Idempotency-Key"), form})
		mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []seen { mu.Lock(); defer mu.Unlock(); return append([]seen(nil), got...) }
}

func TestStripeAgainstStripeMock(t *testing.T) {
	base, sent := recorder(t, startStripeMock(t))
	g := pay.NewStripe("sk_test_123", base, nil)
	ctx := context.Background()
	p, err := g.Charge(ctx, pay.Charge{Key: "reg-42", Amount: 4500, Currency: "usd", Method: "pm_card_visa", Description: "10K entry"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.ID, "pi_") || p.Amount != 4500 || p.Currency != "usd" || p.Key != "reg-42" {
		t.Errorf("payment %+v; want a pi_ of 4500 usd keyed reg-42", p)
	}
	r, err := g.Refund(ctx, p.ID, 1500, "refund-reg-42")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.ID, "re_") || r.Amount != 1500 || r.PaymentID != p.ID {
		t.Errorf("refund %+v; want a re_ of 1500 on %s", r, p.ID)
	}
	reqs := sent()
	if len(reqs) != 2 {
		t.Fatalf("%d requests to Stripe; want 2: %+v", len(reqs), reqs)
	}
	c := reqs[0]
	want := map[string]string{"amount": "4500", "currency": "usd", "payment_method": "pm_card_visa", "confirm": "true",
		"automatic_payment_methods[allow_redirects]": "never", "metadata[key]": "reg-42", "description": "10K entry"}
	if c.path != "/v1/payment_intents" || c.key != "reg-42" {
		t.Errorf("charge went to %s with Idempotency-Key %q; want /v1/payment_intents, reg-42", c.path, c.key)
	}
	for k, v := range want {
		if c.form.Get(k) != v {
			t.Errorf("charge's %s = %q; want %q", k, c.form.Get(k), v)
		}
	}
	if rf := reqs[1]; rf.path != "/v1/refunds" || rf.key != "refund-reg-42" || rf.form.Get("payment_intent") != p.ID || rf.form.Get("amount") != "1500" {
		t.Errorf("refund sent %+v; want /v1/refunds keyed refund-reg-42 for %s, 1500", rf, p.ID)
	}
	if _, err := g.Charge(ctx, pay.Charge{Key: "reg-43", Amount: 0, Currency: "usd", Method: "pm_card_visa"}); err == nil {
		t.Error("a charge of 0 went to Stripe")
	}
	if n := len(sent()); n != 2 {
		t.Errorf("%d requests; a refused charge must not reach Stripe", n)
	}
}

// Stripe's errors, in the shapes its API documents (stripe-mock does not
// decline cards), become this package's: declines, a reused key, and
// Stripe or the network failing (the outcome unknown: send it again).
func TestStripeErrors(t *testing.T) {
	answer := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	ch := pay.Charge{Key: "reg-1", Amount: 4500, Currency: "usd", Method: "pm_card_visa"}
	ctx := context.Background()

	g := pay.NewStripe("sk_test_123", answer(402, `{"error":{"type":"card_error","code":"card_declined","decline_code":"insufficient_funds","message":"Your card has insufficient funds."}}`), nil)
	var dec *pay.Declined
	if _, err := g.Charge(ctx, ch); !errors.As(err, &dec) || dec.Code != "insufficient_funds" || dec.Message == "" {
		t.Errorf("card error: %v; want declined insufficient_funds", err)
	}
	g = pay.NewStripe("sk_test_123", answer(400, `{"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters they were first used with."}}`), nil)
	if _, err := g.Charge(ctx, ch); !errors.Is(err, pay.ErrKeyReused) {
		t.Errorf("idempotency error: %v; want ErrKeyReused", err)
	}
	g = pay.NewStripe("sk_test_123", answer(400, `{"error":{"type":"invalid_request_error","code":"parameter_missing","message":"Missing required param: currency."}}`), nil)
	if _, err := g.Charge(ctx, ch); err == nil || errors.Is(err, pay.ErrUnavailable) || errors.As(err, &dec) {
		t.Errorf("invalid request: %v; want a plain error (a bug of ours, not the payer's)", err)
	}
	// stripe-go sends again after a 500 or a network error (twice, with
	// the same key); after that, the outcome is unknown.
	g = pay.NewStripe("sk_test_123", answer(500, `{"error":{"type":"api_error","message":"An unknown error occurred"}}`), nil)
	if _, err := g.Charge(ctx, ch); !errors.Is(err, pay.ErrUnavailable) {
		t.Errorf("Stripe failing: %v; want ErrUnavailable", err)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	gone := "http://" + l.Addr().String()
	l.Close()
	g = pay.NewStripe("sk_test_123", gone, nil)
	if _, err := g.Charge(ctx, ch); !errors.Is(err, pay.ErrUnavailable) {
		t.Errorf("nobody listening: %v; want ErrUnavailable", err)
	}
}

// Find asks Stripe's search for the intent that carries the key in its
// metadata: found and succeeded is the payment, none is ErrNoCharge, a
// failed one is a decline.
func TestStripeFind(t *testing.T) {
	var query string
	answer := func(body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/v1/payment_intents/search" {
				http.NotFound(w, r)
				return
			}
			query = r.URL.Query().Get("query")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	result := func(intents string) string {
		return `{"object":"search_result","url":"/v1/payment_intents/search","has_more":false,"data":[` + intents + `]}`
	}
	ctx := context.Background()
	g := pay.NewStripe("sk_test_123", answer(result(`{"id":"pi_1","object":"payment_intent","amount":4500,"currency":"usd","status":"succeeded","created":1700000000,"metadata":{"key":"reg-1"}}`)), nil)
	p, err := g.Find(ctx, "reg-1")
	if err != nil || p.ID != "pi_1" || p.Amount != 4500 || p.Key != "reg-1" {
		t.Errorf("Find: %+v %v; want pi_1 of 4500", p, err)
	}
	if query != "metadata['key']:'reg-1'" {
		t.Errorf("search query %q", query)
	}
	g = pay.NewStripe("sk_test_123", answer(result("")), nil)
	if _, err := g.Find(ctx, "reg-2"); !errors.Is(err, pay.ErrNoCharge) {
		t.Errorf("nothing found: %v; want ErrNoCharge", err)
	}
	g = pay.NewStripe("sk_test_123", answer(result(`{"id":"pi_3","object":"payment_intent","amount":4500,"currency":"usd","status":"requires_payment_method","metadata":{"key":"reg-3"}}`)), nil)
	var dec *pay.Declined
	if _, err := g.Find(ctx, "reg-3"); !errors.As(err, &dec) {
		t.Errorf("a failed intent: %v; want a decline", err)
	}
	if _, err := g.Find(ctx, "it's"); err == nil {
		t.Error("a key with a quote reached the search")
	}
}

// The payment page's card field: with a test key, Stripe's test card
// numbers pay as their test PaymentMethods (the number itself never goes to
// Stripe); any other number, and any number with a live key, is refused
// before a request is sent.
func TestStripeCardNumbers(t *testing.T) {
	base, sent := recorder(t, startStripeMock(t))
	ctx := context.Background()
	g := pay.NewStripe("sk_test_123", base, nil)
	if _, err := g.Charge(ctx, pay.Charge{Key: "reg-7", Amount: 2550, Currency: "usd", Method: "4242 4242 4242 4242"}); err != nil {
		t.Fatalf("a test card number with a test key: %v", err)
	}
	reqs := sent()
	if len(reqs) != 1 || reqs[0].form.Get("payment_method") != "pm_card_visa" {
		t.Fatalf("sent %+v; want one charge with pm_card_visa", reqs)
	}
	var dec *pay.Declined
	if _, err := g.Charge(ctx, pay.Charge{Key: "reg-8", Amount: 2550, Currency: "usd", Method: "4111-1111-1111-1111"}); !errors.As(err, &dec) || dec.Code != "incorrect_number" {
		t.Errorf("another number with a test key: %v; want declined incorrect_number", err)
	}
	live := pay.NewStripe("sk_live_123", base, nil)
	if _, err := live.Charge(ctx, pay.Charge{Key: "reg-9", Amount: 2550, Currency: "usd", Method: "4242424242424242"}); !errors.As(err, &dec) || dec.Code != "card_number_refused" {
		t.Errorf("a card number with a live key: %v; want declined card_number_refused", err)
	}
	if n := len(sent()); n != 1 {
		t.Errorf("%d requests to Stripe; refused numbers must not reach it", n)
	}
}

// Only a live Stripe key cannot take a card number from a payment page
// (the operator is warned at start).
func TestTakesCardNumbers(t *testing.T) {
	for _, c := range []struct {
		g    pay.Gateway
		want bool
	}{
		{pay.NewStripe("sk_test_123", "", nil), true},
		{pay.NewStripe("sk_live_123", "", nil), false},
		{&pay.Test{}, true},
	} {
		if got := pay.TakesCardNumbers(c.g); got != c.want {
			t.Errorf("TakesCardNumbers(%s) = %v; want %v", c.g.Name(), got, c.want)
		}
	}
}
