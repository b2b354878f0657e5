package auth

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/web"
)

// deleteShow is the confirmation page.
func (s *Service) deleteShow(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	private(w)
	s.Site.Render(w, r, http.StatusOK, DeletePage(s, s.head(r, "Delete account"), u, nil))
}

// deletePost deletes the account once the password is confirmed: every
// app's hooks run in the same transaction, then the session ends.
func (s *Service) deletePost(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	if err := web.ParseForm(r, 1<<16); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	pw := r.PostForm.Get("password")
	var fields map[string]string
	status := http.StatusUnprocessableEntity
	if pw == "" {
		fields = map[string]string{"password": "Enter your password to confirm."}
	} else if err := s.verify(r, u, pw); err != nil {
		msg, st, ok := passwordRefused(w, err, "That is not your password.")
		if !ok {
			s.Site.Error(w, r, err)
			return
		}
		fields, status = map[string]string{"password": msg}, st
	}
	if fields != nil {
		private(w)
		s.Site.Render(w, r, status, DeletePage(s, s.head(r, "Delete account"), u, fields))
		return
	}
	if err := s.Delete(r.Context(), u.ID); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	if err := s.Logout(w, r); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	s.redirect(w, r, "/?account=deleted")
}
