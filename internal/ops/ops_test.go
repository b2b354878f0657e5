package ops_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/ops"
)

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func post(t *testing.T, c *http.Client, u string, v url.Values) *http.Response {
	t.Helper()
	res, err := c.PostForm(u, v)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// signup makes an account and returns a client signed in to it.
func signup(t *testing.T, m *app.Main, name string) (*http.Client, *auth.User) {
	t.Helper()
	c := apptest.Client(t)
	res := post(t, c, m.URL()+"/account/signup", url.Values{"username": {name}, "email": {name + "@example.com"}, "password": {"password1"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signup: %d", res.StatusCode)
	}
	u, err := m.Auth.ByUsername(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return c, u
}

func TestOpsPagesAreForOperatorsOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ctx := context.Background()
		anon := apptest.Client(t)
		for _, p := range []string{"/ops/jobs", "/ops/mail"} {
			if res, _ := get(t, anon, m.URL()+p); res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/account/login") {
				t.Errorf("anonymous %s: %d to %q; want the login", p, res.StatusCode, res.Header.Get("Location"))
			}
		}
		mod, mu := signup(t, m, "mod")
		m.Auth.Grant(ctx, mu.Username, auth.Role{App: "roar", Name: "moderator"}) // a moderator is not an operator
		for _, p := range []string{"/ops/jobs", "/ops/mail"} {
			if res, _ := get(t, mod, m.URL()+p); res.StatusCode != http.StatusForbidden {
				t.Errorf("non-operator %s: %d; want 403", p, res.StatusCode)
			}
		}
		var deadID int64
		err := m.DB.WithTx(ctx, func(tx *db.Tx) error {
			return db.Scan(tx.QueryRow(ctx, `INSERT INTO jobs (kind, payload, state, attempts, max_attempts, run_at, last_error, created_at, updated_at)
				VALUES ('test.unhandled', '{}', 'dead', 8, 8, 0, 'dial tcp: connection refused', 0, 0) RETURNING id`), &deadID)
		})
		if err != nil {
			t.Fatal(err)
		}
		if res := post(t, mod, m.URL()+"/ops/jobs/1/retry", nil); res.StatusCode != http.StatusForbidden {
			t.Errorf("non-operator retry: %d; want 403", res.StatusCode)
		}

		op, ou := signup(t, m, "opal")
		if err := ops.SetOperator(ctx, m.DB, ou.ID, true); err != nil {
			t.Fatal(err)
		}
		res, body := get(t, op, m.URL()+"/ops/jobs")
		if res.StatusCode != 200 || !strings.Contains(body, "dial tcp: connection refused") || !strings.Contains(body, "/retry") {
			t.Fatalf("jobs page %d: want the dead job, its error and a retry button:\n%.2000s", res.StatusCode, body)
		}
		if res, _ := get(t, op, m.URL()+"/ops/jobs/"+itoa(deadID)+"/retry"); res.StatusCode < 400 {
			t.Errorf("GET retry: %d; want an error (only POST retries)", res.StatusCode)
		}
		if c, _ := m.Jobs.Counts(ctx); c.Dead != 1 {
			t.Errorf("after a GET of retry: %+v; want the job still dead", c)
		}
		res = post(t, op, m.URL()+"/ops/jobs/"+itoa(deadID)+"/retry", nil)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("retry: %d", res.StatusCode)
		}
		if c, _ := m.Jobs.Counts(ctx); c.Dead != 0 {
			t.Errorf("after retry: %+v; want no dead job", c)
		}
		if res := post(t, op, m.URL()+"/ops/jobs/999999/retry", nil); res.StatusCode != http.StatusNotFound {
			t.Errorf("retry of no job: %d; want 404", res.StatusCode)
		}

		// A reset mail lands in DATA-DIR/mail and is listed, readable, linked.
		post(t, anon, m.URL()+"/account/reset", url.Values{"email": {"mod@example.com"}})
		// Real time: the worker runs in a whole server over real sockets,
		// which testing/synctest cannot fake.
		deadline := time.Now().Add(20 * time.Second)
		for {
			if l, _ := m.Mail.List(10); len(l) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no mail written")
			}
			time.Sleep(5 * time.Millisecond)
		}
		res, body = get(t, op, m.URL()+"/ops/mail")
		if res.StatusCode != 200 || !strings.Contains(body, "Reset your tutti password") {
			t.Fatalf("mail page %d lacks the reset mail:\n%.2000s", res.StatusCode, body)
		}
		_, rest, _ := strings.Cut(body, `href="/ops/mail/`)
		name, _, _ := strings.Cut(rest, `"`)
		res, body = get(t, op, m.URL()+"/ops/mail/"+name)
		if res.StatusCode != 200 || !strings.Contains(body, `/account/reset/`) || !strings.Contains(body, "to &lt;mod@example.com&gt;") && !strings.Contains(body, "mod@example.com") {
			t.Fatalf("message page %d:\n%.2000s", res.StatusCode, body)
		}
		if res, _ := get(t, op, m.URL()+"/ops/mail/..%2Ftutti.db"); res.StatusCode != http.StatusNotFound {
			t.Errorf("path outside the mail directory: %d; want 404", res.StatusCode)
		}
		if res, _ := get(t, mod, m.URL()+"/ops/mail/"+name); res.StatusCode != http.StatusForbidden {
			t.Errorf("non-operator reading a mail: %d; want 403", res.StatusCode)
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
