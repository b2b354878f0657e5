package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/web"
)

// Job kinds of the mailed flows. The request only enqueues one of these (a
// constant amount of work, whether or not an account matches); the job looks
// the account up and, in one transaction, stores the token and puts the mail
// in the outbox.
const (
	kindReset = "auth.reset"
	kindEmail = "auth.email"
)

// mailing is what the password reset and e-mail change need.
type mailing struct {
	jobs *jobs.Queue
	mail *mail.Mailer
}

// MailDeps enable the mailed flows: password reset and e-mail change.
type MailDeps struct {
	Jobs *jobs.Queue
	Mail *mail.Mailer // its Base makes the links absolute
}

// EnableMail turns on password reset by e-mail and e-mail changes, and
// registers their jobs on d.Jobs. Call it at start-up, before serving.
func (s *Service) EnableMail(d MailDeps) {
	s.mailing = &mailing{jobs: d.Jobs, mail: d.Mail}
	d.Jobs.Handle(kindReset, s.resetJob)
	d.Jobs.Handle(kindEmail, s.emailJob)
}

// base is the origin of the request that began a mailed flow, kept with
// its job: the mail's links start with mail.Mailer.Base of it.
func (m *mailing) base(r *http.Request) string { return web.Origin(r) }

type resetPayload struct {
	Email string `json:"email"`
	Base  string `json:"base"`
}

type emailPayload struct {
	UserID int64  `json:"user_id"`
	Email  string `json:"email"`
	Base   string `json:"base"`
}

// resetJob mails a reset link if the address has an account, else nothing.
func (s *Service) resetJob(ctx context.Context, j *jobs.Job) error {
	var p resetPayload
	if err := j.Decode(&p); err != nil {
		return err
	}
	a, err := s.store.one(ctx, "email_key = ?", EmailKey(p.Email))
	if errors.Is(err, errs.ErrNotFound) {
		s.Log.InfoContext(ctx, "password reset for an address without an account: no mail")
		return nil
	}
	if err != nil {
		return err
	}
	err = s.DB.WithTx(ctx, func(tx *db.Tx) error {
		token, err := s.store.insertToken(ctx, tx, a.ID, purposeReset, "")
		if err != nil {
			return err
		}
		return s.mailing.mail.Enqueue(ctx, tx, mail.Message{To: a.Email, Subject: "Reset your tutti password",
			Text: fmt.Sprintf(`Hello %s,

someone (we hope you) asked to reset the password of your tutti account.
To choose a new password, open this link within an hour:

%s/account/reset/%s

Once the password is changed, every device signed in to your account is
signed out. If you did not ask for this, ignore this message: your
password stays as it is.
`, a.Username, s.mailing.mail.Base(ctx, p.Base), token)})
	})
	if err != nil {
		return err
	}
	s.mailing.mail.Notify()
	return nil
}

// emailJob mails a confirmation link to the new address and a notice to the
// old one; if the new address already has an account, it mails that address
// to say so instead, and changes nothing.
func (s *Service) emailJob(ctx context.Context, j *jobs.Job) error {
	var p emailPayload
	if err := j.Decode(&p); err != nil {
		return err
	}
	a, err := s.store.byID(ctx, p.UserID)
	if errors.Is(err, errs.ErrNotFound) {
		return nil // the account is gone
	}
	if err != nil {
		return err
	}
	other, err := s.store.one(ctx, "email_key = ?", EmailKey(p.Email))
	if err != nil && !errors.Is(err, errs.ErrNotFound) {
		return err
	}
	err = s.DB.WithTx(ctx, func(tx *db.Tx) error {
		if other != nil {
			return s.mailing.mail.Enqueue(ctx, tx, mail.Message{To: p.Email, Subject: "Your address was entered on tutti",
				Text: `Hello,

someone asked to move a tutti account to this e-mail address, but this
address already belongs to a tutti account, so nothing was changed.

If it was you, there is nothing to do: sign in with this address. If not,
ignore this message.
`})
		}
		token, err := s.store.insertToken(ctx, tx, a.ID, purposeEmail, p.Email)
		if err != nil {
			return err
		}
		if err := s.mailing.mail.Enqueue(ctx, tx, mail.Message{To: p.Email, Subject: "Confirm your new e-mail address for tutti",
			Text: fmt.Sprintf(`Hello %s,

to use this address for your tutti account, open this link within an
hour and confirm:

%s/account/email/confirm/%s

If you did not ask for this, ignore this message: nothing changes.
`, a.Username, s.mailing.mail.Base(ctx, p.Base), token)}); err != nil {
			return err
		}
		return s.mailing.mail.Enqueue(ctx, tx, mail.Message{To: a.Email, Subject: "A change of your tutti e-mail address was requested",
			Text: fmt.Sprintf(`Hello %s,

someone signed in to your tutti account asked to change its e-mail
address to %s. It changes only once the link sent there is opened.

If this was not you, change your password now: %s/account/password
`, a.Username, maskEmail(p.Email), s.mailing.mail.Base(ctx, p.Base))})
	})
	if err != nil {
		return err
	}
	s.mailing.mail.Notify()
	return nil
}

// maskEmail shows enough of an address to recognise it: "jo***@example.org".
func maskEmail(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return "***"
	}
	local := addr[:at]
	if len(local) > 2 {
		local = local[:2]
	}
	return local + "***" + addr[at:]
}
