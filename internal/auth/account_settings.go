package auth

import (
	"bytes"
	"maps"
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
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
// (checked by content, cropped, re-encoded). Nothing is written on bad input.
func (s *Service) settingsPost(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	img, err := web.ReadImageForm(r, "avatar")
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
	var avatar *string
	if p.RemoveAvatar {
		avatar = new(string)
	}
	// No file chosen (or a url-encoded form) keeps the current picture.
	if img != nil {
		key, err := s.storeAvatar(r.Context(), bytes.NewReader(img))
		if err != nil {
			if f := errs.FieldsOf(err); f != nil {
				render(f)
				return
			}
			s.Site.Error(w, r, err)
			return
		}
		avatar = &key
	}
	old, err := s.store.updateProfile(r.Context(), u.ID, p, avatar)
	if err != nil {
		if avatar != nil && *avatar != "" {
			s.Files.Delete(r.Context(), *avatar)
		}
		s.Site.Error(w, r, err)
		return
	}
	if old != "" && s.Files != nil {
		if err := s.Files.Delete(r.Context(), old); err != nil {
			s.Log.Warn("delete old avatar", "key", old, "err", err)
		}
	}
	s.redirect(w, r, "/account/settings?saved=1")
}
