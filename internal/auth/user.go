package auth

import (
	"context"
	"net/url"

	"github.com/tutti-dev/tutti/internal/files"
	"time"
)

// User is a platform account as apps see it (never its password hash).
type User struct {
	ID          int64
	Username    string // as typed at sign-up; unique case-insensitively
	Email       string
	DisplayName string // may be empty: then Name() is the username
	Bio         string
	Avatar      string // storage key of the resized avatar; empty: none
	CreatedAt   time.Time
	// Roles are the roles the user holds in the apps (user_roles), loaded
	// with the account in the same statement; see Has.
	Roles []Role
}

// Name is what to show for the user.
func (u *User) Name() string {
	if u.DisplayName != "" {
		return u.DisplayName
	}
	return u.Username
}

type ctxKey struct{}

// WithUser returns ctx carrying u (the auth middleware does this per request).
func WithUser(ctx context.Context, u *User) context.Context {
	return context.WithValue(ctx, ctxKey{}, u)
}

// UserFrom returns the signed-in user of the request's context, or nil.
func UserFrom(ctx context.Context) *User {
	u, _ := ctx.Value(ctxKey{}).(*User)
	return u
}

// LoginURL is the login page that returns to next afterwards.
func LoginURL(next string) string {
	if next == "" {
		return "/account/login"
	}
	return "/account/login?next=" + url.QueryEscape(next)
}

// AvatarURL is the URL of the user's picture, or "" without one (show the
// initials then).
func (u *User) AvatarURL() string {
	if u.Avatar == "" {
		return ""
	}
	return files.Prefix + u.Avatar
}

// ProfileURL is the public profile page of username.
func ProfileURL(username string) string { return "/account/u/" + url.PathEscape(username) }

// withNext appends ?next= to path when next is set.
func withNext(path, next string) string {
	if next == "" {
		return path
	}
	return path + "?next=" + url.QueryEscape(next)
}
