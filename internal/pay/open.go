package pay

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// DefaultURL is the gateway with nothing configured: the built-in test
// gateway, which pays every good test card at once.
const DefaultURL = "test:"

// Settings is a parsed --payment-url.
type Settings struct {
	Kind        string // "test" or "stripe"
	DeclineRate float64
	Latency     time.Duration
	SecretKey   string // stripe: the account's secret key
	APIURL      string // stripe: "" for Stripe's API, or another base URL (stripe-mock)
}

// Parse reads a payment URL:
//
//	test:[?decline=0.02&latency=300ms]        the built-in test gateway (a stand-in)
//	stripe://SECRET_KEY@api.stripe.com         Stripe
//	stripe://SECRET_KEY@127.0.0.1:12111?secure=false   a stripe-mock, over plain HTTP
//
// Its errors never quote the secret key.
func Parse(raw string) (Settings, error) {
	if raw == "" {
		raw = DefaultURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return Settings{}, fmt.Errorf("payment-url: not a URL (want test: or stripe://KEY@host)")
	}
	q := u.Query()
	switch u.Scheme {
	case "test":
		s := Settings{Kind: "test"}
		if v := q.Get("decline"); v != "" {
			if s.DeclineRate, err = strconv.ParseFloat(v, 64); err != nil || s.DeclineRate < 0 || s.DeclineRate > 1 {
				return Settings{}, fmt.Errorf("payment-url: decline=%q: want a share from 0 to 1", v)
			}
		}
		if v := q.Get("latency"); v != "" {
			if s.Latency, err = time.ParseDuration(v); err != nil || s.Latency < 0 || s.Latency > time.Minute {
				return Settings{}, fmt.Errorf("payment-url: latency=%q: want a duration up to 1m", v)
			}
		}
		return s, nil
	case "stripe":
		key := u.User.Username()
		if key == "" || u.Host == "" {
			return Settings{}, fmt.Errorf("payment-url: stripe needs stripe://SECRET_KEY@host")
		}
		s := Settings{Kind: "stripe", SecretKey: key}
		if u.Host != "api.stripe.com" {
			scheme := "https"
			if q.Get("secure") == "false" {
				scheme = "http"
			}
			s.APIURL = scheme + "://" + u.Host
		}
		return s, nil
	}
	return Settings{}, fmt.Errorf("payment-url: scheme %q: want test or stripe", u.Scheme)
}

// Open makes the gateway that raw names (see Parse); the test gateway keeps
// its ledger in d.
func Open(raw string, d *db.DB) (Gateway, error) {
	s, err := Parse(raw)
	if err != nil {
		return nil, err
	}
	if s.Kind == "stripe" {
		return NewStripe(s.SecretKey, s.APIURL, nil), nil
	}
	return &Test{DB: d, DeclineRate: s.DeclineRate, Latency: s.Latency}, nil
}
