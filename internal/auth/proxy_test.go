package auth_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/ratelimit"
)

// Behind a trusted proxy (the test client on loopback plays nginx), each
// forwarded client has its own login limit, and a request that reached the
// proxy over https gets HSTS and Secure cookies. Without the setting, the
// same headers are a client's claims and change nothing.
func TestBehindTrustedProxy(t *testing.T) {
	form := url.Values{"login": {"x"}, "password": {"whatever1"}}
	from := func(ip, proto string) http.Header {
		h := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "X-Forwarded-For": {"203.0.113.50, " + ip}}
		if proto != "" {
			h.Set("X-Forwarded-Proto", proto)
		}
		return h
	}
	for _, trusted := range []bool{true, false} {
		m := apptest.StartWith(t, func(c *config.Config) {
			if trusted {
				c.TrustedProxies = "127.0.0.1/32, ::1"
			}
		})
		m.Auth.SetLimits(auth.Limits{LoginPerIP: ratelimit.NewLocal(time.Minute, 2)})
		w := apptest.NewWeb(t, m)
		for range 2 {
			res, body := w.Do("POST", "/account/login", strings.NewReader(form.Encode()), from("198.51.100.1", "https"))
			apptest.WantStatus(t, res, body, http.StatusUnauthorized)
		}
		res, body := w.Do("POST", "/account/login", strings.NewReader(form.Encode()), from("198.51.100.1", "https"))
		apptest.WantStatus(t, res, body, http.StatusTooManyRequests)
		// Another client behind the same proxy.
		res, body = w.Do("POST", "/account/login", strings.NewReader(form.Encode()), from("198.51.100.2", ""))
		want := http.StatusUnauthorized
		if !trusted {
			want = http.StatusTooManyRequests // one address for everyone: the peer's
		}
		apptest.WantStatus(t, res, body, want)

		res, _ = w.Do("GET", "/account/login", nil, from("198.51.100.3", "https"))
		if got := res.Header.Get("Strict-Transport-Security") != ""; got != trusted {
			t.Errorf("trusted %v: HSTS sent %v", trusted, got)
		}
		res, _ = w.Do("GET", "/roar/", nil, from("198.51.100.3", "https"))
		if got := res.Header.Get("Strict-Transport-Security") != ""; got != trusted {
			t.Errorf("trusted %v: HSTS on a cached page sent %v", trusted, got)
		}
		// A cookie set over https is Secure: the demo-free way is the
		// sign-up, which signs in.
		res, body = w.Do("POST", "/account/signup", strings.NewReader(url.Values{"username": {"proxied"},
			"email": {"p@example.com"}, "password": {"secret-pw-9"}}.Encode()), from("198.51.100.4", "https"))
		apptest.WantRedirect(t, res, body)
		secure := false
		for _, c := range res.Cookies() {
			if c.Name == auth.CookieName {
				secure = c.Secure
			}
		}
		if secure != trusted {
			t.Errorf("trusted %v: session cookie Secure %v", trusted, secure)
		}
	}
}
