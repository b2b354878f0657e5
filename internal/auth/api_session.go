package auth

import (
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// The session of an app's JSON API (POST and DELETE /APP/api/session) is
// the platform's cookie session, the one the pages use: the same rate
// limits and neutral 401 as the login form. Each app answers a login with
// its own view of the user.

// APILogin is the handler of an API's POST .../session: a JSON body
// {"login", "password"}, decoded strictly; a missing one is a 422 naming
// it; then Login, and answer writes the signed-in user.
func (s *Service) APILogin(answer func(w http.ResponseWriter, r *http.Request, u *User)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Login    string `json:"login"`
			Password string `json:"password"`
		}
		if err := web.DecodeJSON(r, &in); err != nil {
			s.Site.Error(w, r, err)
			return
		}
		fields := map[string]string{}
		if strings.TrimSpace(in.Login) == "" {
			fields["login"] = "Enter your username or e-mail."
		}
		if in.Password == "" {
			fields["password"] = "Enter your password."
		}
		if len(fields) > 0 {
			s.Site.Error(w, r, errs.Fields(fields))
			return
		}
		u, err := s.Login(w, r, in.Login, in.Password)
		if err != nil {
			s.Site.Error(w, r, err)
			return
		}
		answer(w, r, u)
	}
}

// APILogout is the handler of an API's DELETE .../session: it ends the
// session, if any, 204 either way.
func (s *Service) APILogout(w http.ResponseWriter, r *http.Request) {
	if err := s.Logout(w, r); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNoContent)
}
