package auth

import (
	"errors"
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// mailRoutes mounts the mailed flows (when EnableMail was called).
func (s *Service) mailRoutes(mux *http.ServeMux) {
	handle := func(pattern string, h http.HandlerFunc) {
		mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if s.mailing == nil { // EnableMail was not called: no such pages
				s.Site.NotFound(w, r)
				return
			}
			h(w, r)
		})
	}
	handle("GET /account/reset", s.resetShow)
	handle("POST /account/reset", s.resetPost)
	handle("GET /account/reset/done", s.resetDone)
	handle("GET /account/reset/{token}", s.resetTokenShow)
	handle("POST /account/reset/{token}", s.resetTokenPost)
	handle("GET /account/email", s.emailShow)
	handle("POST /account/email", s.emailPost)
	handle("GET /account/email/changed", s.emailChanged)
	handle("GET /account/email/confirm/{token}", s.emailConfirmShow)
	handle("POST /account/email/confirm/{token}", s.emailConfirmPost)
}

// secret marks a page whose URL holds a token: never cached, never sent
// on as a referrer.
func secret(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
}

func (s *Service) resetShow(w http.ResponseWriter, r *http.Request) {
	s.Site.Render(w, r, http.StatusOK, ResetRequestPage(s, s.head(r, "Reset your password"), "", nil, r.URL.Query().Has("sent")))
}

// resetPost always gives the same answer, as fast, whether or not the
// address has an account: it only enqueues a job, which looks it up.
func (s *Service) resetPost(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<16); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	email := strings.TrimSpace(r.PostForm.Get("email"))
	if msg := CheckEmail(email); msg != "" {
		s.Site.Render(w, r, http.StatusUnprocessableEntity,
			ResetRequestPage(s, s.head(r, "Reset your password"), email, map[string]string{"email": msg}, false))
		return
	}
	ctx := r.Context()
	if ok, retry := s.lim().ResetPerIP.Allow(ctx, web.ClientIP(r)); !ok {
		e := errs.As(tooMany(retry, "Too many reset requests from here."))
		s.Site.Render(w, r, web.RefusedStatus(w.Header(), e), // the form again, with the wait
			ResetRequestPage(s, s.head(r, "Reset your password"), email, map[string]string{"": e.Message}, false))
		return
	}
	if ok, _ := s.lim().ResetPerAddress.Allow(ctx, EmailKey(email)); ok {
		if _, err := s.mailing.jobs.Add(ctx, kindReset, resetPayload{Email: email, Base: s.mailing.base(r)}); err != nil {
			s.Site.Error(w, r, err)
			return
		}
	} else {
		s.Log.InfoContext(ctx, "password reset: address over its limit; no mail", "id", web.RequestID(ctx))
	}
	s.redirect(w, r, "/account/reset?sent=1")
}

func (s *Service) resetDone(w http.ResponseWriter, r *http.Request) {
	s.Site.Render(w, r, http.StatusOK, ResetDonePage(s, s.head(r, "Password changed")))
}

// linkInvalid answers 410 Gone to an unknown, used or expired token.
func (s *Service) linkInvalid(w http.ResponseWriter, r *http.Request, again string) {
	s.Site.Render(w, r, http.StatusGone, LinkInvalidPage(s, s.head(r, "Link expired"), again))
}

func (s *Service) resetTokenShow(w http.ResponseWriter, r *http.Request) {
	secret(w)
	token := r.PathValue("token")
	if _, err := s.store.peekToken(r.Context(), token, purposeReset); err != nil {
		if errors.Is(err, errs.ErrNotFound) {
			s.linkInvalid(w, r, "/account/reset")
			return
		}
		s.Site.Error(w, r, err)
		return
	}
	s.Site.Render(w, r, http.StatusOK, ResetPasswordPage(s, s.head(r, "New password"), token, nil))
}

// resetTokenPost sets the new password (validated like sign-up's), uses the
// token up and ends every session of the account.
func (s *Service) resetTokenPost(w http.ResponseWriter, r *http.Request) {
	secret(w)
	if err := web.ParseForm(r, 1<<16); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	token, pw := r.PathValue("token"), r.PostForm.Get("new_password")
	if _, err := s.store.peekToken(r.Context(), token, purposeReset); errors.Is(err, errs.ErrNotFound) {
		s.linkInvalid(w, r, "/account/reset")
		return
	}
	if msg := CheckPasswordRules(pw); msg != "" {
		s.Site.Render(w, r, http.StatusUnprocessableEntity, ResetPasswordPage(s, s.head(r, "New password"), token, map[string]string{"new_password": msg}))
		return
	}
	h, err := hashPassword(r.Context(), pw)
	if err != nil {
		s.Site.Error(w, r, err)
		return
	}
	if _, err := s.store.resetPassword(r.Context(), token, h); err != nil {
		if errors.Is(err, errs.ErrNotFound) { // used meanwhile
			s.linkInvalid(w, r, "/account/reset")
			return
		}
		s.Site.Error(w, r, err)
		return
	}
	s.redirect(w, r, "/account/reset/done")
}
