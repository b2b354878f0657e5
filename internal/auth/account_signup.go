package auth

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// signupShow shows the sign-up form.
func (s *Service) signupShow(w http.ResponseWriter, r *http.Request) {
	next := web.LocalPath(r.URL.Query().Get("next"))
	if UserFrom(r.Context()) != nil {
		s.redirect(w, r, orHome(next))
		return
	}
	s.Site.Render(w, r, http.StatusOK, SignupPage(s, s.head(r, "Create your account"), Signup{}, next, nil))
}

// signupPost creates the account and signs it in; bad or taken fields
// re-render the form (the password is never echoed back).
func (s *Service) signupPost(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<16); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	f := r.PostForm
	in := Signup{Username: f.Get("username"), Email: f.Get("email"), Password: f.Get("password")}
	next := web.LocalPath(f.Get("next"))
	if _, err := s.SignupAndLogin(w, r, in); err != nil {
		switch e := errs.As(err); {
		case e.Kind == errs.Invalid && len(e.Fields) > 0:
			s.Site.Render(w, r, http.StatusUnprocessableEntity, SignupPage(s, s.head(r, "Create your account"), trimmed(in), next, e.Fields))
			return
		case e.Kind == errs.TooMany: // the form again, with the wait
			s.Site.Render(w, r, web.RefusedStatus(w.Header(), e), SignupPage(s, s.head(r, "Create your account"), trimmed(in), next, map[string]string{"": e.Message}))
			return
		}
		s.Site.Error(w, r, err)
		return
	}
	if next == "" {
		next = "/account/settings?welcome=1"
	}
	s.redirect(w, r, next)
}

func trimmed(in Signup) Signup {
	in.Validate()
	in.Password = ""
	return in
}
