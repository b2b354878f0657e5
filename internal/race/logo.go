package race

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/media"
)

// A race's logo (the wizard's first step, or the basics page) goes through
// the core's media path: the form streams it (media.ReadForm, checked as a
// picture), its original is kept privately, and the derive job fits it
// into LogoSize (never enlarged) as PNG (transparency kept, metadata
// dropped) in the core's file storage, so every instance serves it. Once
// made, the race shows it (onLogoReady); until then, the logo it had.

const (
	LogoSize      = 256                 // the stored logo fits a square of this side
	MaxLogoBytes  = files.MaxImageBytes // an upload's size (a phone's photo)
	logoBodyLimit = files.ImageFormBody
	// LogoKind is the media kind of a race's logo (ref: the race's id).
	LogoKind    = "race-logo"
	logoVariant = "256"
)

// logoKind is the logo's media kind, decoding within budget.
func (s *Service) logoKind(budget *files.ImageBudget) media.Kind {
	k := media.ImageKind(LogoKind, "race-logos", budget,
		media.Resize(logoVariant, budget, LogoSize, LogoSize, media.Within, media.PNG))
	k.MaxBytes = MaxLogoBytes
	k.OnReady = s.onLogoReady
	return k
}

// SetLogo keeps an uploaded logo for the directed race, shown once the
// job has made it (nil up: removes the logo at once, and any upload under
// way).
func (s *Service) SetLogo(ctx context.Context, d *Directing, up *media.Upload) error {
	if up == nil {
		return s.removeLogo(ctx, d)
	}
	if s.media == nil {
		return errs.Fields(map[string]string{"logo": media.CannotUpload})
	}
	_, err := s.media.Save(ctx, up, d.Race.ID, d.User.ID)
	return err
}

// removeLogo removes the directed race's logo and its uploads.
func (s *Service) removeLogo(ctx context.Context, d *Directing) error {
	old := d.Race.Logo
	if err := s.edit(ctx, d, func(tx *db.Tx) error { return s.store.SetLogo(ctx, tx, d.Race.ID, "") }); err != nil {
		return err
	}
	d.Race.Logo = ""
	s.forgetLogo(ctx, d.Race.ID, old)
	return nil
}

// forgetLogo deletes a race's logo file (url) and its uploads.
func (s *Service) forgetLogo(ctx context.Context, raceID int64, url string) {
	ctx = context.WithoutCancel(ctx)
	if s.media != nil {
		if err := s.media.Forget(ctx, LogoKind, raceID); err != nil {
			s.log.Warn("race: delete logo uploads", "race", raceID, "err", err)
		}
	}
	if key, ok := s.logoKey(url); ok {
		if err := s.files.Delete(ctx, key); err != nil {
			s.log.Warn("race: delete old logo", "key", key, "err", err)
		}
	}
}

// onLogoReady makes a derived logo the race's (the job's OnReady): the
// race page shows it from its next version on; the file it replaces goes
// (media deletes the older uploads; a logo stored before media kept them
// is deleted here).
func (s *Service) onLogoReady(ctx context.Context, f *media.File) error {
	v := f.Derived[logoVariant]
	if v == nil {
		return fmt.Errorf("race: logo %d ready without its picture", f.ID)
	}
	url := s.files.URL(v.Key)
	var slug, old string
	err := db.Scan(s.db.QueryRow(ctx, `SELECT slug, logo FROM race_races WHERE id = ?`, f.Ref), &slug, &old)
	if errs.KindOf(err) == errs.NotFound { // the race is gone
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.editRace(ctx, f.Ref, slug, func(tx *db.Tx) error { return s.store.SetLogo(ctx, tx, f.Ref, url) }); err != nil {
		return err
	}
	if key, ok := s.logoKey(old); ok && old != url {
		if err := s.files.Delete(context.WithoutCancel(ctx), key); err != nil {
			s.log.Warn("race: delete old logo", "key", key, "err", err)
		}
	}
	return nil
}

// CreateRaceWithLogo is CreateRace with the logo uploaded on the same form
// (up, checked by media.ReadForm; nil for none): the basics are checked
// (the picture was, as the form was read), and the logo kept once the race
// exists.
func (s *Service) CreateRaceWithLogo(ctx context.Context, u *auth.User, in RaceInput, up *media.Upload) (*Race, error) {
	if _, vf := in.Validate(s.now()); len(vf) > 0 {
		return nil, errs.Fields(vf)
	}
	r, err := s.CreateRace(ctx, u, in)
	if err != nil || up == nil {
		return r, err
	}
	if err := s.SetLogo(ctx, &Directing{User: u, Race: r}, up); err != nil {
		return r, fmt.Errorf("race: the new race's logo: %w", err)
	}
	return r, nil
}

// logoKey is the storage key of a logo's URL.
func (s *Service) logoKey(url string) (string, bool) {
	if s.files == nil {
		return "", false
	}
	prefix := s.files.URL("")
	if url == "" || !strings.HasPrefix(url, prefix) {
		return "", false
	}
	return strings.TrimPrefix(url, prefix), true
}

// SetLogo stores race's logo URL ("" for none).
func (s *Store) SetLogo(ctx context.Context, tx *db.Tx, raceID int64, url string) error {
	_, err := tx.Exec(ctx, `UPDATE race_races SET logo = ? WHERE id = ?`, url, raceID)
	return err
}

// logoPost uploads the race's logo (a multipart form, field logo), or
// removes it (remove=1).
func (a *App) logoPost(w http.ResponseWriter, r *http.Request) {
	d := a.directed(w, r)
	if d == nil {
		return
	}
	up, err := a.Media.ReadForm(r, "logo", LogoKind)
	defer up.Close()
	saved := "1"
	switch {
	case err != nil:
	case r.PostForm.Get("remove") == "1":
		err = a.svc.SetLogo(r.Context(), d, nil)
	case up == nil:
		err = errs.Fields(map[string]string{"logo": "Choose a picture to upload."})
	default:
		err = a.svc.SetLogo(r.Context(), d, up)
		saved = "logo"
	}
	if f := errs.FieldsOf(err); f != nil {
		a.Site.Render(w, r, http.StatusUnprocessableEntity, BasicsPage(a, d.User, d.Race, basicsOf(d.Race), nil, f, ""))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/basics?saved="+saved)
}
