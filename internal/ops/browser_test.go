package ops_test

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/ops"
)

var resetLink = regexp.MustCompile(`https?://[^/\s]+(/account/reset/[A-Za-z0-9_-]{43})`)

// waitMail waits for the outbox to write n mails and returns the newest's body.
func waitMail(t *testing.T, m *app.Main, n int) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if l, _ := m.Mail.List(10); len(l) >= n {
			s, err := m.Mail.Read(l[0].Name)
			if err != nil {
				t.Fatal(err)
			}
			return s.Text
		}
		if time.Now().After(deadline) {
			t.Fatalf("fewer than %d mails written", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestBrowserResetAndOpsPages walks the password reset in Chromium and shows
// the operators' pages, at desktop and phone sizes, saving screenshots.
func TestBrowserResetAndOpsPages(t *testing.T) {
	for _, size := range []struct {
		name string
		w, h int
	}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			ctx := apptest.Browser(t, size.w, size.h)
			ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
			defer cancel()
			m := apptest.One(t)
			base := m.URL()
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			shot := func(name string) { apptest.Screenshot(t, ctx, name+"-"+size.name) }

			must(chromedp.Do(ctx,
				chromedp.Navigate(base+"/account/signup"),
				chromedp.WaitVisible(`#username`),
				chromedp.SendKeys(`#username`, "opal"),
				chromedp.SendKeys(`#email`, "opal@example.com"),
				chromedp.SendKeys(`#password`, "password1"),
				chromedp.Submit(`#username`),
				chromedp.WaitVisible(`#display_name`),
			))
			bg := context.Background()
			u, err := m.Auth.ByUsername(bg, "opal")
			must(err)
			must(ops.SetOperator(bg, m.DB, u.ID, true))
			must(m.DB.WithTx(bg, func(tx *db.Tx) error {
				_, err := tx.Exec(bg, `INSERT INTO jobs (kind, payload, state, attempts, max_attempts, run_at, last_error, created_at, updated_at)
					VALUES ('mail.send', '{}', 'dead', 8, 8, ?, 'mail: send to x@example.net via smtp.example.org: dial tcp 203.0.113.9:587: connect: connection refused', ?, ?)`,
					time.Now().UnixMilli(), time.Now().Add(-3*time.Hour).UnixMilli(), time.Now().UnixMilli())
				return err
			}))

			must(chromedp.Do(ctx, chromedp.Navigate(base+"/account/email"), chromedp.WaitVisible(`#new_email`)))
			shot("account-email")

			must(chromedp.Do(ctx,
				chromedp.Navigate(base+"/account/reset"),
				chromedp.WaitVisible(`#email`),
			))
			shot("reset-request")
			must(chromedp.Do(ctx,
				chromedp.SendKeys(`#email`, "opal@example.com"),
				chromedp.Submit(`#email`),
				chromedp.WaitVisible(`.flash.ok`),
			))
			shot("reset-sent")
			link := resetLink.FindStringSubmatch(waitMail(t, m, 1))
			if link == nil {
				t.Fatal("no reset link in the mail")
			}
			must(chromedp.Do(ctx, chromedp.Navigate(base+link[1]), chromedp.WaitVisible(`#new_password`)))
			shot("reset-new-password")
			must(chromedp.Do(ctx,
				chromedp.SendKeys(`#new_password`, "a new password"),
				chromedp.Submit(`#new_password`),
				chromedp.WaitVisible(`a[href="/account/login"]`),
			))
			shot("reset-done")

			// The reset signed opal out everywhere: sign in with the new password.
			must(chromedp.Do(ctx,
				apptest.SignIn(base, "opal", "a new password"),
				chromedp.Navigate(base+"/ops/jobs"),
				chromedp.WaitVisible(`.ops-counts`),
			))
			shot("ops-jobs")
			must(chromedp.Do(ctx, chromedp.Navigate(base+"/ops/mail"), chromedp.WaitVisible(`.ops-mail a`)))
			shot("ops-mail")
			must(chromedp.Do(ctx, chromedp.Click(`.ops-mail a`), chromedp.WaitVisible(`.mail-body a`)))
			shot("ops-mail-message")
		})
	}
}
