package race

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"maps"
	"net/http"
	"strings"

	"github.com/disintegration/imaging"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/web"
)

// A race's logo (the wizard's first step): an uploaded picture, checked by
// its content, decoded within the process's image budget, fitted into
// LogoSize and stored as PNG (transparency kept, metadata dropped) in the
// core's file storage, so every instance serves it.

const (
	LogoSize      = 256                 // the stored logo fits a square of this side
	MaxLogoBytes  = files.MaxImageBytes // an upload's size (a phone's photo)
	logoBodyLimit = files.ImageFormBody
)

// logoImage decodes a checked upload, fits it into LogoSize (never
// enlarged) and re-encodes it as PNG.
func logoImage(b []byte) ([]byte, error) {
	img, err := imaging.Decode(bytes.NewReader(b), imaging.AutoOrientation(true))
	if err != nil {
		return nil, errs.Fields(map[string]string{"logo": "Upload a JPEG, PNG, GIF or WebP picture."})
	}
	if bd := img.Bounds(); bd.Dx() > LogoSize || bd.Dy() > LogoSize {
		img = imaging.Fit(img, LogoSize, LogoSize, imaging.Lanczos)
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, img); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// SetLogo stores an uploaded logo for the directed race (nil r: removes
// it); the old file goes once the race no longer names it.
func (s *Service) SetLogo(ctx context.Context, d *Directing, r io.Reader) error {
	var out []byte
	if r != nil {
		var err error
		if out, err = s.readLogo(ctx, r); err != nil {
			return err
		}
	}
	return s.storeLogo(ctx, d, out)
}

// readLogo checks an uploaded picture and makes it the logo's PNG.
func (s *Service) readLogo(ctx context.Context, r io.Reader) ([]byte, error) {
	if s.files == nil {
		return nil, errs.Fields(map[string]string{"logo": "Pictures cannot be uploaded here."})
	}
	b, cost, err := files.ReadImage(r, MaxLogoBytes, "logo")
	if err != nil {
		return nil, err
	}
	var out []byte
	err = s.images.Process(ctx, cost, "logo", func() (err error) { out, err = logoImage(b); return err })
	return out, err
}

// storeLogo stores a logo made by readLogo (nil: none) for the directed
// race, and deletes the old one.
func (s *Service) storeLogo(ctx context.Context, d *Directing, png []byte) error {
	url := ""
	if png != nil {
		key := files.NewKey("race-logos", ".png")
		if err := s.files.Put(ctx, key, bytes.NewReader(png), "image/png"); err != nil {
			return err
		}
		url = s.files.URL(key)
	}
	old := d.Race.Logo
	if err := s.edit(ctx, d, func(tx *db.Tx) error { return s.store.SetLogo(ctx, tx, d.Race.ID, url) }); err != nil {
		if key, ok := s.logoKey(url); ok {
			s.files.Delete(context.WithoutCancel(ctx), key)
		}
		return err
	}
	d.Race.Logo = url
	if key, ok := s.logoKey(old); ok {
		if err := s.files.Delete(context.WithoutCancel(ctx), key); err != nil {
			s.log.Warn("race: delete old logo", "key", key, "err", err)
		}
	}
	return nil
}

// CreateRaceWithLogo is CreateRace with the logo uploaded on the same form
// (img, nil for none): the basics and the picture are checked together
// (every message at once), and nothing is stored unless both are good.
func (s *Service) CreateRaceWithLogo(ctx context.Context, u *auth.User, in RaceInput, img []byte) (*Race, error) {
	var png []byte
	f := map[string]string{}
	if img != nil {
		var err error
		png, err = s.readLogo(ctx, bytes.NewReader(img))
		if err != nil && errs.FieldsOf(err) == nil {
			return nil, err
		}
		maps.Copy(f, errs.FieldsOf(err))
	}
	if _, vf := in.Validate(s.now()); len(vf) > 0 || len(f) > 0 {
		maps.Copy(f, vf)
		return nil, errs.Fields(f)
	}
	r, err := s.CreateRace(ctx, u, in)
	if err != nil || png == nil {
		return r, err
	}
	if err := s.storeLogo(ctx, &Directing{User: u, Race: r}, png); err != nil {
		return r, fmt.Errorf("race: the new race's logo: %w", err)
	}
	return r, nil
}

// logoKey is the storage key of a logo's URL.
func (s *Service) logoKey(url string) (string, bool) {
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
	img, err := web.ReadImageForm(r, "logo")
	switch {
	case err != nil:
	case r.PostForm.Get("remove") == "1":
		err = a.svc.SetLogo(r.Context(), d, nil)
	case img == nil:
		err = errs.Fields(map[string]string{"logo": "Choose a picture to upload."})
	default:
		err = a.svc.SetLogo(r.Context(), d, bytes.NewReader(img))
	}
	if f := errs.FieldsOf(err); f != nil {
		a.Site.Render(w, r, http.StatusUnprocessableEntity, BasicsPage(a, d.User, d.Race, basicsOf(d.Race), nil, f, ""))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/basics?saved=1")
}
