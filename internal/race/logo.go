package race

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/disintegration/imaging"

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
	LogoSize      = 256     // the stored logo fits a square of this side
	MaxLogoBytes  = 5 << 20 // an upload's size
	logoBodyLimit = MaxLogoBytes + 64<<10
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
	if s.files == nil {
		return errs.Fields(map[string]string{"logo": "Pictures cannot be uploaded here."})
	}
	url := ""
	if r != nil {
		b, cost, err := files.ReadImage(r, MaxLogoBytes, "logo")
		if err != nil {
			return err
		}
		var out []byte
		if err := s.images.Process(ctx, cost, "logo", func() (err error) { out, err = logoImage(b); return err }); err != nil {
			return err
		}
		key := files.NewKey("race-logos", ".png")
		if err := s.files.Put(ctx, key, bytes.NewReader(out), "image/png"); err != nil {
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
	if key, ok := s.logoKey(old); ok {
		if err := s.files.Delete(context.WithoutCancel(ctx), key); err != nil {
			s.log.Warn("race: delete old logo", "key", key, "err", err)
		}
	}
	return nil
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
	if err := web.ParseForm(r, 1<<20); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if r.MultipartForm != nil {
		defer r.MultipartForm.RemoveAll()
	}
	var err error
	if r.PostForm.Get("remove") == "1" {
		err = a.svc.SetLogo(r.Context(), d, nil)
	} else {
		var file multipart.File
		err = http.ErrMissingFile
		if r.MultipartForm != nil {
			file, _, err = r.FormFile("logo")
		}
		switch {
		case errors.Is(err, http.ErrMissingFile):
			err = errs.Fields(map[string]string{"logo": "Choose a picture to upload."})
		case err != nil:
			err = errs.E(errs.Invalid, "The picture could not be read.")
		default:
			err = a.svc.SetLogo(r.Context(), d, file)
			file.Close()
		}
	}
	if f := fields(err); f != nil {
		a.Site.Render(w, r, http.StatusUnprocessableEntity, BasicsPage(a, d.User, d.Race, basicsOf(d.Race), f, ""))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/basics?saved=1")
}
