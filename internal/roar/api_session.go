package roar

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
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

func (a *App) apiMe(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	a.me(w, r, u, http.StatusOK)
}
