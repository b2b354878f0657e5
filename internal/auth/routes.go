package auth

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/web"
)

// Routes mounts the account pages under /account/.
func (s *Service) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /account/{$}", s.accountHome)
	mux.HandleFunc("GET /account/login", s.loginShow)
	mux.HandleFunc("POST /account/login", s.loginPost)
	mux.HandleFunc("GET /account/signup", s.signupShow)
	mux.HandleFunc("POST /account/signup", s.signupPost)
	mux.HandleFunc("POST /account/logout", s.logoutPost)
	mux.HandleFunc("GET /account/logout", onlyPost) // not the catch-all 404
	mux.HandleFunc("GET /account/settings", s.settingsShow)
	mux.Handle("POST /account/settings", web.MaxBody(SettingsBodyLimit, http.HandlerFunc(s.settingsPost)))
	mux.HandleFunc("GET /account/password", s.passwordShow)
	mux.HandleFunc("POST /account/password", s.passwordPost)
	mux.HandleFunc("GET /account/delete", s.deleteShow)
	mux.HandleFunc("POST /account/delete", s.deletePost)
	mux.HandleFunc("GET /account/u/{username}", s.profileShow)
	s.mailRoutes(mux) // password reset and e-mail change (account_reset.go)
}

// SettingsBodyLimit is the request body limit of the settings form: a picture
// of up to MaxAvatarBytes and the form around it, and room to read past a
// larger one and answer with the form (media.ReadForm).
const SettingsBodyLimit = files.ImageFormBody

// head is the layout's head for an account page, with the viewer's name
// rendered server-side (these pages are never shared between users).
func (s *Service) head(r *http.Request, title string) web.Head {
	h := web.Head{Title: title, App: "/account/"}
	if u := UserFrom(r.Context()); u != nil {
		h.User = u.Username
	}
	return h
}

// formHead is head with the core's form helpers (forms.js: the picture's
// size checked before sending).
func (s *Service) formHead(r *http.Request, title string) web.Head {
	h := s.head(r, title)
	h.JS = append(h.JS, s.Site.Assets.URL("forms.js"))
	return h
}

// private marks a per-user page as not for shared caches.
func private(w http.ResponseWriter) { w.Header().Set("Cache-Control", "private, no-cache") }

func (s *Service) redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// accountHome sends visitors to the login page and users to their settings.
func (s *Service) accountHome(w http.ResponseWriter, r *http.Request) {
	if _, ok := RequireUser(w, r); ok {
		s.redirect(w, r, "/account/settings")
	}
}

// onlyPost answers 405 to a GET of a POST-only route.
func onlyPost(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "POST")
	http.Error(w, "Use POST.", http.StatusMethodNotAllowed)
}
