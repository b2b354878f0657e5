package auth

import (
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// loginShow shows the login form; a signed-in user goes straight on.
func (s *Service) loginShow(w http.ResponseWriter, r *http.Request) {
	next := web.LocalPath(r.URL.Query().Get("next"))
	if UserFrom(r.Context()) != nil {
		s.redirect(w, r, orHome(next))
		return
	}
	flash := ""
	if r.URL.Query().Has("bye") {
		flash = "You are signed out."
	}
	s.Site.Render(w, r, http.StatusOK, LoginPage(s, s.head(r, "Sign in"), loginForm{Next: next}, nil, flash))
}

// loginPost checks the credentials and returns to ?next= (a same-site path
// only) or the start page.
func (s *Service) loginPost(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<16); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	f := r.PostForm
	in := loginForm{Login: strings.TrimSpace(f.Get("login")), Next: web.LocalPath(f.Get("next"))}
	pw := f.Get("password")
	fields := map[string]string{}
	if in.Login == "" {
		fields["login"] = "Enter your username or e-mail."
	}
	if pw == "" {
		fields["password"] = "Enter your password."
	}
	if len(fields) > 0 {
		s.Site.Render(w, r, http.StatusUnprocessableEntity, LoginPage(s, s.head(r, "Sign in"), in, fields, ""))
		return
	}
	if _, err := s.Login(w, r, in.Login, pw); err != nil {
		switch e := errs.As(err); e.Kind {
		case errs.Unauthorized:
			s.Site.Render(w, r, http.StatusUnauthorized, LoginPage(s, s.head(r, "Sign in"), in, map[string]string{"": e.Message}, ""))
			return
		case errs.TooMany: // the form again, with the wait (never the password)
			s.Site.Render(w, r, web.RefusedStatus(w.Header(), e), LoginPage(s, s.head(r, "Sign in"), in, map[string]string{"": e.Message}, ""))
			return
		}
		s.Site.Error(w, r, err)
		return
	}
	s.redirect(w, r, orHome(in.Next))
}

func orHome(next string) string {
	if next == "" {
		return "/"
	}
	return next
}
