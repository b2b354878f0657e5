package auth

import (
	"errors"
	"mime/multipart"
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
	s.Site.Render(w, r, http.StatusOK, SettingsPage(s, s.head(r, "Your account"), u, Profile{DisplayName: u.DisplayName, Bio: u.Bio}, nil, flash))
}

// settingsPost saves the profile and, if one was sent, the new picture
// (checked by content, cropped, re-encoded). Nothing is written on bad input.
func (s *Service) settingsPost(w http.ResponseWriter, r *http.Request) {
	u, ok := RequireUser(w, r)
	if !ok {
		return
	}
	if err := web.ParseForm(r, 1<<20); err != nil {
		s.Site.Error(w, r, err)
		return
	}
	if r.MultipartForm != nil {
		defer r.MultipartForm.RemoveAll()
	}
	// Validate cleans p in place; a refused field keeps what was typed
	// (text.Field.Clean), so the form shown again has it.
	p := Profile{DisplayName: r.PostForm.Get("display_name"), Bio: r.PostForm.Get("bio"),
		RemoveAvatar: r.PostForm.Get("remove_avatar") == "1"}
	fields := p.Validate()
	render := func(fields map[string]string) {
		private(w)
		s.Site.Render(w, r, http.StatusUnprocessableEntity, SettingsPage(s, s.head(r, "Your account"), u, p, fields, ""))
	}
	if len(fields) > 0 {
		render(fields)
		return
	}
	var avatar *string
	if p.RemoveAvatar {
		avatar = new(string)
	}
	// A url-encoded form, or a multipart one without the file, keeps the
	// current picture (r.FormFile would answer "not multipart" to the former).
	var file multipart.File
	var hdr *multipart.FileHeader
	err := http.ErrMissingFile
	if r.MultipartForm != nil {
		file, hdr, err = r.FormFile("avatar")
	}
	switch {
	case errors.Is(err, http.ErrMissingFile):
	case err != nil:
		s.Site.Error(w, r, errs.E(errs.Invalid, "The picture could not be read."))
		return
	case hdr.Size == 0: // the empty file input of a form without a picture
		file.Close()
	default:
		key, err := s.storeAvatar(r.Context(), file)
		file.Close()
		if err != nil {
			if e := errs.As(err); e.Kind == errs.Invalid && len(e.Fields) > 0 {
				render(e.Fields)
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
