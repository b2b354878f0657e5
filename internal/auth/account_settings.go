package auth

import (
	"maps"
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
)

func (s *Service) settingsShow(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	flash := ""
	switch {
	case r.URL.Query().Has("welcome"):
		flash = "Welcome to tutti! Add a name and a picture if you like."
	case r.URL.Query().Has("saved"):
		flash = "Saved."
	}
	private(w)
	s.Site.Render(w, r, http.StatusOK, SettingsPage(s, s.formHead(r, "Your account"), u, Profile{DisplayName: u.DisplayName, Bio: u.Bio}, nil, flash))
}

// settingsPost saves the profile and, if one was sent, the new picture
// (streamed and checked by content here; cropped and re-encoded by the
// media job, the account showing it once made). Nothing is written on bad
// input.
func (s *Service) settingsPost(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	up, err := s.Media.ReadForm(r, "avatar", AvatarKind)
	defer up.Close()
	// Validate cleans p in place; a refused field keeps what was typed
	// (text.Field.Clean), so the form shown again has it.
	p := Profile{DisplayName: r.PostForm.Get("display_name"), Bio: r.PostForm.Get("bio"),
		RemoveAvatar: r.PostForm.Get("remove_avatar") == "1"}
	render := func(fields map[string]string) {
		private(w)
		s.Site.Render(w, r, http.StatusUnprocessableEntity, SettingsPage(s, s.formHead(r, "Your account"), u, p, fields, ""))
	}
	fields := p.Validate()
	if err != nil && errs.FieldsOf(err) == nil {
		s.Site.Error(w, r, err)
		return
	}
	maps.Copy(fields, errs.FieldsOf(err)) // the picture's message with the others
	if len(fields) > 0 {
		render(fields)
		return
	}
	// No file chosen (or a url-encoded form) keeps the current picture; a
	// new one replaces it once made.
	if up != nil {
		if _, err := s.Media.Save(r.Context(), up, u.ID, u.ID); err != nil {
			s.Site.Error(w, r, err)
			return
		}
	}
	var avatar *string
	if p.RemoveAvatar && up == nil {
		avatar = new(string)
	}
	old, err := s.store.updateProfile(r.Context(), u.ID, p, avatar)
	if err != nil {
		s.Site.Error(w, r, err)
		return
	}
	if avatar != nil && s.Media != nil {
		if err := s.Media.Forget(r.Context(), AvatarKind, u.ID); err != nil {
			s.Log.Warn("delete avatar uploads", "user", u.ID, "err", err)
		}
	}
	if old != "" && s.Files != nil {
		if err := s.Files.Delete(r.Context(), old); err != nil {
			s.Log.Warn("delete old avatar", "key", old, "err", err)
		}
	}
	s.redirect(w, r, "/account/settings?saved=1")
}
