package auth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

func (s *Service) emailShow(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	flash := ""
	if r.URL.Query().Has("sent") {
		flash = "We sent a link to the new address. Your address changes when you open it (within an hour)."
	}
	private(w)
	s.Site.Render(w, r, http.StatusOK, EmailPage(s, s.head(r, "E-mail address"), u, "", nil, flash))
}

// emailPost asks for a change of address: with the current password, it
// enqueues the job that mails the new address a confirmation link. Whether
// the new address is taken is never said here: the job mails that address
// instead (see emailJob).
func (s *Service) emailPost(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	if err := web.ParseForm(r, 1<<16); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	email := strings.TrimSpace(r.PostForm.Get("new_email"))
	fields := map[string]string{}
	if msg := CheckAccountEmail(email); msg != "" {
		fields["new_email"] = msg
	} else if EmailKey(email) == EmailKey(u.Email) {
		fields["new_email"] = "That is already your address."
	}
	status := http.StatusUnprocessableEntity
	if pw := r.PostForm.Get("current_password"); pw == "" {
		fields["current_password"] = "Enter your current password."
	} else if err := s.verify(r, u, pw); err != nil {
		msg, st, ok := passwordRefused(w, err, "That is not your current password.")
		if !ok {
			s.Site.Error(w, r, err)
			return
		}
		fields["current_password"], status = msg, st
	}
	if len(fields) > 0 {
		private(w)
		s.Site.Render(w, r, status, EmailPage(s, s.head(r, "E-mail address"), u, email, fields, ""))
		return
	}
	ctx := r.Context()
	if ok, retry := s.lim().EmailPerUser.Allow(ctx, UsernameKey(u.Username)); !ok {
		e := errs.As(tooMany(retry, "Too many address changes."))
		private(w)
		s.Site.Render(w, r, web.RefusedStatus(w.Header(), e), EmailPage(s, s.head(r, "E-mail address"), u, email, map[string]string{"": e.Message}, ""))
		return
	}
	if _, err := s.mailing.jobs.Add(ctx, kindEmail, emailPayload{UserID: u.ID, Email: email, Base: s.mailing.base(r)}); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	s.redirect(w, r, "/account/email?sent=1")
}

// emailConfirmShow shows the address a link would switch to, with a button:
// opening the link (a GET) changes nothing.
func (s *Service) emailConfirmShow(w http.ResponseWriter, r *http.Request) {
	secret(w)
	token := r.PathValue("token")
	t, err := s.store.peekToken(r.Context(), token, purposeEmail)
	if err != nil {
		if errors.Is(err, errs.ErrNotFound) {
			s.linkInvalid(w, r, "/account/email")
			return
		}
		s.Site.Error(w, r, err)
		return
	}
	s.Site.Render(w, r, http.StatusOK, EmailConfirmPage(s, s.head(r, "Confirm your address"), token, t.Email))
}

func (s *Service) emailConfirmPost(w http.ResponseWriter, r *http.Request) {
	secret(w)
	_, err := s.store.confirmEmail(r.Context(), r.PathValue("token"))
	switch {
	case errors.Is(err, errs.ErrNotFound):
		s.linkInvalid(w, r, "/account/email")
	case errors.Is(err, errs.ErrConflict): // another account took it meanwhile
		s.Site.Render(w, r, http.StatusConflict, EmailChangedPage(s, s.head(r, "E-mail address"),
			"This address cannot be used for your account. Your address is unchanged.", false))
	case err != nil:
		s.Site.Error(w, r, err)
	default:
		s.redirect(w, r, "/account/email/changed")
	}
}

func (s *Service) emailChanged(w http.ResponseWriter, r *http.Request) {
	s.Site.Render(w, r, http.StatusOK, EmailChangedPage(s, s.head(r, "E-mail address"), "Your e-mail address is changed.", true))
}
