package roar

import (
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// APIMe is the signed-in user as they see themselves.
type APIMe struct {
	APIUser
	Email     string `json:"email"`
	Bio       string `json:"bio"`
	Moderator bool   `json:"moderator"`
	Unread    int64  `json:"unread_notifications"`
}

func (a *App) me(w http.ResponseWriter, r *http.Request, u *auth.User, status int) {
	unread, err := a.svc.Unread(r.Context(), u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, status, APIMe{
		APIUser: apiUser(Author{ID: u.ID, Username: u.Username, DisplayName: u.DisplayName, Avatar: u.Avatar}),
		Email:   u.Email, Bio: u.Bio, Moderator: isModerator(u), Unread: unread,
	})
}

// apiLogin starts a cookie session (the platform's, shared with the pages):
// the same rate limits and neutral 401 as the login form.
func (a *App) apiLogin(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Login    string `json:"login"`
		Password string `json:"password"`
	}
	if err := web.DecodeJSON(r, &in); err != nil {
		a.Site.Error(w, r, err)
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
		a.Site.Error(w, r, errs.Fields(fields))
		return
	}
	u, err := a.Auth.Login(w, r, in.Login, in.Password)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.me(w, r, u, http.StatusOK)
}

// apiLogout ends the session, if any: 204 either way.
func (a *App) apiLogout(w http.ResponseWriter, r *http.Request) {
	if err := a.Auth.Logout(w, r); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	noContent(w)
}

func (a *App) apiMe(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	a.me(w, r, u, http.StatusOK)
}
