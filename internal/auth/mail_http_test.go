package auth_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/ratelimit"
)

// drained waits until the background jobs are all done (a database state:
// there is no channel to wait on) and returns the mail written meanwhile.
// It polls in real time: the whole server runs over real sockets, which
// testing/synctest cannot fake (a goroutine waiting on one is not durably
// blocked).
func drained(t *testing.T, m *app.Main) []mail.Stored {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := m.Jobs.Counts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c == (jobs.Counts{}) {
			break
		}
		if c.Dead > 0 || time.Now().After(deadline) {
			list, _ := m.Jobs.List(context.Background(), "", 10)
			t.Fatalf("jobs not done: %+v %+v", c, list)
		}
		time.Sleep(5 * time.Millisecond)
	}
	list, err := m.Mail.List(100)
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// mailTo returns the one message to addr with subject, body decoded.
func mailTo(t *testing.T, m *app.Main, list []mail.Stored, addr, subject string) *mail.Stored {
	t.Helper()
	var found *mail.Stored
	for _, s := range list {
		if s.To == "<"+addr+">" && strings.Contains(s.Subject, subject) {
			if found != nil {
				t.Fatalf("two mails to %s about %q", addr, subject)
			}
			var err error
			if found, err = m.Mail.Read(s.Name); err != nil {
				t.Fatal(err)
			}
		}
	}
	if found == nil {
		t.Fatalf("no mail to %s about %q among %+v", addr, subject, list)
	}
	return found
}

var linkRE = regexp.MustCompile(`https?://[^/\s]+(/account/(?:reset|email/confirm)/[A-Za-z0-9_-]{43})\b`)

// linkIn returns the path of the one-time link in a mail.
func linkIn(t *testing.T, s *mail.Stored) string {
	t.Helper()
	m := linkRE.FindStringSubmatch(s.Text)
	if m == nil {
		t.Fatalf("no link in %q", s.Text)
	}
	return m[1]
}

func TestPasswordResetByEmail(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		owner, laptop := newBrowser(t, m), newBrowser(t, m)
		owner.signup("ana", "ana@example.com", "password1")
		laptop.login("ana", "password1")

		anon := newBrowser(t, m)
		_, body := anon.get("/account/login")
		if !strings.Contains(body, `href="/account/reset"`) {
			t.Error("the login page has no link to reset the password")
		}
		res, body := anon.post("/account/reset", url.Values{"email": {"Ana@Example.com"}})
		wantRedirect(t, res, body, "/account/reset?sent=1")
		_, known := anon.get("/account/reset?sent=1")
		res, body = anon.post("/account/reset", url.Values{"email": {"nobody@example.com"}})
		wantRedirect(t, res, body, "/account/reset?sent=1") // the same answer
		_, unknown := anon.get("/account/reset?sent=1")
		if known != unknown || !strings.Contains(known, "If an account exists for that address") {
			t.Errorf("the answers differ or do not say 'if an account exists':\n%s\n---\n%s", known, unknown)
		}
		list := drained(t, m)
		if len(list) != 1 {
			t.Fatalf("%d mails; want only the one to ana (none for an address without an account)", len(list))
		}
		link := linkIn(t, mailTo(t, m, list, "ana@example.com", "Reset your tutti password"))

		res, body = anon.get(link)
		wantStatus(t, res, body, 200)
		if res.Header.Get("Referrer-Policy") != "no-referrer" || !strings.Contains(res.Header.Get("Cache-Control"), "no-store") {
			t.Errorf("token page headers %v; want no-referrer and no-store", res.Header)
		}
		res, body = anon.post(link, url.Values{"new_password": {"short"}})
		wantStatus(t, res, body, http.StatusUnprocessableEntity) // validated like sign-up; the link still works
		res, body = anon.post(link, url.Values{"new_password": {"brand new pw"}})
		wantRedirect(t, res, body, "/account/reset/done")

		for _, b := range []*browser{owner, laptop} {
			if who := b.signedInAs(); who != "" {
				t.Errorf("a session of ana is still signed in as %q after the reset", who)
			}
		}
		res, body = anon.post("/account/login", url.Values{"login": {"ana"}, "password": {"password1"}})
		wantStatus(t, res, body, http.StatusUnauthorized)
		anon.login("ana@example.com", "brand new pw")

		// The link is used up.
		other := newBrowser(t, m)
		res, body = other.get(link)
		wantStatus(t, res, body, http.StatusGone)
		res, body = other.post(link, url.Values{"new_password": {"another pw 123"}})
		wantStatus(t, res, body, http.StatusGone)
		other.login("ana", "brand new pw")
	})
}

func TestResetLinkExpiresAfterAnHour(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		b := newBrowser(t, m)
		b.signup("eve", "eve@example.com", "password1")
		b.post("/account/reset", url.Values{"email": {"eve@example.com"}})
		link := linkIn(t, mailTo(t, m, drained(t, m), "eve@example.com", "Reset"))
		ctx := context.Background()
		var left int64
		if err := m.DB.QueryRow(ctx, "SELECT expires_at - created_at FROM auth_tokens").Scan(&left); err != nil || left != 3600 {
			t.Fatalf("token lifetime %d s (%v); want 3600", left, err)
		}
		if _, err := m.DB.Exec(ctx, "UPDATE auth_tokens SET expires_at = ?", time.Now().Unix()-1); err != nil {
			t.Fatal(err)
		}
		res, body := b.get(link)
		wantStatus(t, res, body, http.StatusGone)
		res, body = b.post(link, url.Values{"new_password": {"brand new pw"}})
		wantStatus(t, res, body, http.StatusGone)
		for _, bad := range []string{"/account/reset/short", "/account/reset/" + strings.Repeat("A", 43)} {
			res, body = b.get(bad)
			wantStatus(t, res, body, http.StatusGone)
		}
		b.login("eve", "password1")
		// The next token made, anyone's, takes the expired row away.
		b.signup("fay", "fay@example.com", "password1")
		if res, body := newBrowser(t, m).post("/account/reset", url.Values{"email": {"fay@example.com"}}); res.StatusCode != http.StatusSeeOther && res.StatusCode != 200 {
			t.Fatalf("reset for fay: %d %.300s", res.StatusCode, body)
		}
		mailTo(t, m, drained(t, m), "fay@example.com", "Reset")
		var rows, expired int
		if err := m.DB.QueryRow(ctx, "SELECT count(*), count(CASE WHEN expires_at <= ? THEN 1 END) FROM auth_tokens", time.Now().Unix()).Scan(&rows, &expired); err != nil || rows != 1 || expired != 0 {
			t.Errorf("tokens after another reset: %d rows, %d expired (%v); want fay's one", rows, expired, err)
		}
	})
}

func TestResetRequestValidatedAndRateLimited(t *testing.T) {
	m := apptest.Start(t, "")
	b := newBrowser(t, m)
	res, body := b.post("/account/reset", url.Values{"email": {"not an address"}})
	wantStatus(t, res, body, http.StatusUnprocessableEntity)
	if !strings.Contains(body, `value="not an address"`) {
		t.Error("the form does not keep what was typed")
	}
	if c, _ := m.Jobs.Counts(context.Background()); c != (jobs.Counts{}) {
		t.Errorf("a bad address enqueued work: %+v", c)
	}
	m.Auth.SetLimits(auth.Limits{ResetPerIP: auth.DefaultLimits().ResetPerIP}) // tests run with the limits off
	for i := range 5 {
		res, body = b.post("/account/reset", url.Values{"email": {"x" + string(rune('a'+i)) + "@example.com"}})
		wantRedirect(t, res, body, "/account/reset?sent=1")
	}
	res, body = b.post("/account/reset", url.Values{"email": {"y@example.com"}})
	wantStatus(t, res, body, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	// The form again, with the wait in words and the address kept.
	for _, want := range []string{`action="/account/reset"`, `value="y@example.com"`, "Please try again in " + res.Header.Get("Retry-After") + " seconds."} {
		if !strings.Contains(body, want) {
			t.Errorf("429 page lacks %q:\n%.2000s", want, body)
		}
	}
}

func TestChangeEmailConfirmedAtTheNewAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ana, bob := newBrowser(t, m), newBrowser(t, m)
		ana.signup("ana", "ana@example.com", "password1")
		bob.signup("bob", "bob@example.com", "password1")

		res, body := ana.get("/account/email")
		wantStatus(t, res, body, 200)
		res, body = ana.post("/account/email", url.Values{"new_email": {"ana2@example.com"}, "current_password": {"wrong password"}})
		wantStatus(t, res, body, http.StatusUnprocessableEntity)
		res, body = ana.post("/account/email", url.Values{"new_email": {"ANA@example.com"}, "current_password": {"password1"}})
		wantStatus(t, res, body, http.StatusUnprocessableEntity)
		if c, _ := m.Jobs.Counts(context.Background()); c != (jobs.Counts{}) {
			t.Fatalf("refused forms enqueued work: %+v", c)
		}

		// bob's address: the same answer as any other; bob's inbox hears of it.
		res, body = ana.post("/account/email", url.Values{"new_email": {"bob@example.com"}, "current_password": {"password1"}})
		wantRedirect(t, res, body, "/account/email?sent=1")
		list := drained(t, m)
		taken := mailTo(t, m, list, "bob@example.com", "Your address was entered")
		if linkRE.MatchString(taken.Text) || len(list) != 1 {
			t.Fatalf("mails %+v; want one, without a link, to bob", list)
		}

		res, body = ana.post("/account/email", url.Values{"new_email": {"ana2@example.com"}, "current_password": {"password1"}})
		wantRedirect(t, res, body, "/account/email?sent=1")
		list = drained(t, m)
		link := linkIn(t, mailTo(t, m, list, "ana2@example.com", "Confirm your new e-mail"))
		notice := mailTo(t, m, list, "ana@example.com", "A change of your tutti e-mail address")
		if linkRE.MatchString(notice.Text) || !strings.Contains(notice.Text, "an***@example.com") {
			t.Errorf("notice to the old address %q: want the new one masked and no link", notice.Text)
		}

		// Opening the link (GET) changes nothing; the button (POST) does.
		phone := newBrowser(t, m)
		res, body = phone.get(link)
		wantStatus(t, res, body, 200)
		if !strings.Contains(body, "ana2@example.com") || !strings.Contains(body, `method="post"`) {
			t.Fatalf("confirmation page lacks the address or its button:\n%s", body)
		}
		if _, body = ana.get("/account/email"); !strings.Contains(body, "<strong>ana@example.com</strong>") {
			t.Fatal("the address changed on GET")
		}
		res, body = phone.post(link, nil)
		wantRedirect(t, res, body, "/account/email/changed")
		if _, body = ana.get("/account/email"); !strings.Contains(body, "<strong>ana2@example.com</strong>") {
			t.Fatal("the address did not change on confirmation")
		}
		res, body = phone.post(link, nil)
		wantStatus(t, res, body, http.StatusGone)
		newBrowser(t, m).login("ana2@example.com", "password1")
		res, body = newBrowser(t, m).post("/account/login", url.Values{"login": {"ana@example.com"}, "password": {"password1"}})
		wantStatus(t, res, body, http.StatusUnauthorized)
	})
}

// Too many address changes: the form again (429), with the wait and what
// was typed, never the password.
func TestChangeEmailRateLimited(t *testing.T) {
	m := apptest.Start(t, "")
	m.Auth.SetLimits(auth.Limits{EmailPerUser: ratelimit.NewLocal(time.Minute, 1)})
	b := newBrowser(t, m)
	b.signup("gus", "gus@example.com", "password1")
	form := url.Values{"new_email": {"gus2@example.com"}, "current_password": {"password1"}}
	res, body := b.post("/account/email", form)
	wantRedirect(t, res, body, "/account/email?sent=1")
	form.Set("new_email", "gus3@example.com")
	res, body = b.post("/account/email", form)
	wantStatus(t, res, body, http.StatusTooManyRequests)
	for _, want := range []string{`action="/account/email"`, `value="gus3@example.com"`, "Too many address changes. Please try again in " + res.Header.Get("Retry-After") + " seconds."} {
		if !strings.Contains(body, want) {
			t.Errorf("429 page lacks %q:\n%.2000s", want, body)
		}
	}
	if strings.Contains(body, "password1") {
		t.Error("the 429 page echoes the password")
	}
}
