package auth

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

func (s *Service) passwordShow(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	flash := ""
	if r.URL.Query().Has("saved") {
		flash = "Your password is changed. Your other devices are signed out."
	}
	private(w)
	s.Site.Render(w, r, http.StatusOK, PasswordPage(s, s.head(r, "Password"), u, nil, flash))
}

// passwordPost changes the password after checking the current one; the new
// session generation signs out every other session, and this one gets a new
// token carrying the new generation.
func (s *Service) passwordPost(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	if err := web.ParseForm(r, 1<<16); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	cur, pw := r.PostForm.Get("current_password"), r.PostForm.Get("new_password")
	fields := map[string]string{}
	status := http.StatusUnprocessableEntity
	if msg := CheckPasswordRules(pw); msg != "" {
		fields["new_password"] = msg
	}
	if cur == "" {
		fields["current_password"] = "Enter your current password."
	} else if err := s.verify(r, u, cur); err != nil {
		msg, st, ok := passwordRefused(w, err, "That is not your current password.")
		if !ok {
			s.Site.Error(w, r, err)
			return
		}
		fields["current_password"], status = msg, st
	}
	if len(fields) > 0 {
		private(w)
		s.Site.Render(w, r, status, PasswordPage(s, s.head(r, "Password"), u, fields, ""))
		return
	}
	h, err := hashPassword(r.Context(), pw)
	if err != nil {
		s.Site.Error(w, r, err)
		return
	}
	gen, err := s.store.setPassword(r.Context(), u.ID, h)
	if err != nil {
		s.Site.Error(w, r, err)
		return
	}
	sm := s.manager(r)
	if err := sm.RenewToken(r.Context()); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	sm.Put(r.Context(), keyGen, gen)
	s.redirect(w, r, "/account/password?saved=1")
}

// passwordRefused is how a form that asks for the user's password shows
// verify's refusal: a wrong password is wrong (422); too many tries keep the
// form too, with the wait in the message and Retry-After (429). Any other
// error is not the form's to show (ok false).
func passwordRefused(w http.ResponseWriter, err error, wrong string) (msg string, status int, ok bool) {
	switch e := errs.As(err); e.Kind {
	case errs.Invalid:
		return wrong, http.StatusUnprocessableEntity, true
	case errs.TooMany:
		return e.Message, web.RefusedStatus(w.Header(), e), true
	}
	return "", 0, false
}

// verify checks a signed-in user's password (rate-limited like logins): nil
// if right, an Invalid error if wrong.
func (s *Service) verify(r *http.Request, u *User, pw string) error {
	ctx := r.Context()
	if ok, retry := s.lim().LoginPerAccount.Allow(ctx, UsernameKey(u.Username)); !ok {
		return tooMany(retry, "Too many attempts.")
	}
	a, err := s.store.byID(ctx, u.ID)
	if err != nil {
		return err
	}
	ok, err := checkPassword(ctx, a.hash, pw)
	if err != nil && ctx.Err() != nil {
		return err
	}
	if !ok {
		return errs.E(errs.Invalid, "Wrong password.")
	}
	return nil
}
