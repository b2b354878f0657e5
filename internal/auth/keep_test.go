package auth_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
)

// TestRefusedSettingsKeepWhatWasTyped: a profile refused for a too-long
// display name, a too-long bio or a character the text rules refuse comes
// back (422) with the message beside the field and every field as typed,
// url-encoded and multipart alike; nothing is saved.
func TestRefusedSettingsKeepWhatWasTyped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ctx := context.Background()
		b := newBrowser(t, m)
		b.signup("gwen", "gwen@example.com", "password1")
		res, body := b.upload(map[string]string{"display_name": "Gwen G.", "bio": "Cello."}, "me.png", pngBytes(t, 64, 64))
		wantRedirect(t, res, body, "/account/settings?saved=1")
		before, _ := m.Auth.ByUsername(ctx, "gwen")

		long := strings.Repeat("Zoë ", 13) // 52 characters
		cases := []struct {
			name, display, bio, field, msg string
			remove                         bool
		}{
			{"display name too long", long, "Plays the cello <b>loudly</b> & well.", "display_name", "at most 50 characters; this one has 51", false},
			{"bio too long", "Gwen, still", strings.Repeat("Bach. ", 84), "bio", "at most 500 characters; this one has 503", false},
			{"display name on two lines", "Gwen\nG.", "kept bio", "display_name", "must be on one line", false},
			{"direction override in the bio", "Gwen <3", "txt\u202eexe", "bio", "(U+202E)", false},
			{"remove box kept", long, "", "display_name", "at most 50 characters", true},
		}
		for _, c := range cases {
			form := map[string]string{"display_name": c.display, "bio": c.bio}
			if c.remove {
				form["remove_avatar"] = "1"
			}
			for _, how := range []string{"urlencoded", "multipart"} {
				t.Run(c.name+"/"+how, func(t *testing.T) {
					var res *http.Response
					var body string
					if how == "multipart" {
						res, body = b.upload(form, "", nil)
					} else {
						v := url.Values{}
						for k, s := range form {
							v.Set(k, s)
						}
						res, body = b.post("/account/settings", v)
					}
					wantStatus(t, res, body, http.StatusUnprocessableEntity)
					if !strings.Contains(body, `id="`+c.field+`-error"`) || !strings.Contains(body, c.msg) {
						t.Errorf("no message %q beside %s", c.msg, c.field)
					}
					if !strings.Contains(body, `aria-invalid="true"`) {
						t.Error("the refused field is not marked invalid")
					}
					// Typed text comes back escaped, as templ writes it.
					if want := `name="display_name" value="` + html.EscapeString(c.display) + `"`; !strings.Contains(body, want) {
						t.Errorf("display name not kept: want %q in the form", want)
					}
					if want := `>` + html.EscapeString(c.bio) + `</textarea>`; !strings.Contains(body, want) {
						t.Errorf("bio not kept: want %q in the form", want)
					}
					if got := strings.Contains(body, `name="remove_avatar" value="1" checked`); got != c.remove {
						t.Errorf("remove-picture box checked %v; want %v (as sent)", got, c.remove)
					}
					after, _ := m.Auth.ByUsername(ctx, "gwen")
					if after.DisplayName != before.DisplayName || after.Bio != before.Bio || after.Avatar != before.Avatar {
						t.Errorf("a refused form saved: %+v; want %+v", after, before)
					}
				})
			}
		}
	})
}

// TestRefusedAccountFormsKeepWhatWasTyped: the other account forms, refused,
// keep what was typed (never a password) with the message beside the field,
// and change nothing.
func TestRefusedAccountFormsKeepWhatWasTyped(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ctx := context.Background()
		m.Auth.SetLimits(auth.Limits{})
		b := newBrowser(t, m)
		b.signup("hugo", "hugo@example.com", "password1")
		visitor := newBrowser(t, m)
		cases := []struct {
			name   string
			who    *browser
			path   string
			form   url.Values
			status int
			field  string // "" : the form's own message at the top
			msg    string
			kept   []string // what the form must show again
		}{
			{"sign-up, bad e-mail", visitor, "/account/signup",
				url.Values{"username": {"Ida_R"}, "email": {"ida@"}, "password": {"secret-pw-1"}}, 422, "email", "does not look like",
				[]string{`value="Ida_R"`, `value="ida@"`}},
			{"sign-up, bad username", visitor, "/account/signup",
				url.Values{"username": {"Ida R"}, "email": {"ida@example.com"}, "password": {"secret-pw-1"}}, 422, "username", "Use only letters",
				[]string{`value="Ida R"`, `value="ida@example.com"`}},
			{"login, wrong password", visitor, "/account/login",
				url.Values{"login": {"hugo@example.com"}, "password": {"secret-pw-1"}}, 401, "", "",
				[]string{`value="hugo@example.com"`}},
			{"login, no password", visitor, "/account/login",
				url.Values{"login": {"hugo"}, "password": {""}}, 422, "password", "Enter your password.",
				[]string{`value="hugo"`}},
			{"e-mail change, wrong password", b, "/account/email",
				url.Values{"new_email": {"hugo.new@example.com"}, "current_password": {"secret-pw-1"}}, 422, "current_password", "not your current password",
				[]string{`value="hugo.new@example.com"`}},
			{"e-mail change, bad address", b, "/account/email",
				url.Values{"new_email": {"hugo at home"}, "current_password": {"password1"}}, 422, "new_email", "does not look like",
				[]string{`value="hugo at home"`}},
			{"password reset, bad address", visitor, "/account/reset",
				url.Values{"email": {"who@where"}}, 422, "email", "does not look like",
				[]string{`value="who@where"`}},
			{"password change, too short", b, "/account/password",
				url.Values{"current_password": {"password1"}, "new_password": {"short"}}, 422, "new_password", "At least 8", nil},
			{"account deletion, wrong password", b, "/account/delete",
				url.Values{"password": {"secret-pw-1"}}, 422, "password", "not your password", nil},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				res, body := c.who.post(c.path, c.form)
				wantStatus(t, res, body, c.status)
				if c.field != "" && (!strings.Contains(body, `id="`+c.field+`-error"`) || !strings.Contains(body, c.msg)) {
					t.Errorf("no message %q beside %s", c.msg, c.field)
				}
				for _, want := range c.kept {
					if !strings.Contains(body, want) {
						t.Errorf("not kept: want %s in the form", want)
					}
				}
				if strings.Contains(body, "secret-pw-1") || strings.Contains(body, `value="short"`) {
					t.Error("a password was echoed back")
				}
			})
		}
		var users int
		if err := m.DB.QueryRow(ctx, "SELECT COUNT(*) FROM users").Scan(&users); err != nil || users != 1 {
			t.Errorf("users: %d (%v); want 1 (nothing written)", users, err)
		}
		if u, err := m.Auth.ByUsername(ctx, "hugo"); err != nil || u.Email != "hugo@example.com" {
			t.Errorf("hugo after refused forms: %+v, %v; want unchanged", u, err)
		}
		b.login("hugo", "password1") // the password is unchanged
	})
}
