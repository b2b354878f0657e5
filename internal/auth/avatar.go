package auth

import (
	"bytes"
	"context"
	"image"
	_ "image/gif" // decoders for the accepted types
	"image/jpeg"
	_ "image/png"
	"io"
	"net/http"

	"github.com/disintegration/imaging"
	_ "golang.org/x/image/webp"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
)

// AvatarSize is the side of the stored square picture.
const (
	AvatarSize = 256
	maxPixels  = 50_000_000 // a decompression bomb is refused before decoding
)

var avatarTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// avatarImage checks an upload by its content (not its name or declared
// type), decodes it, crops it to a centred square of AvatarSize and
// re-encodes it as JPEG, which also drops any metadata.
func avatarImage(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxAvatarBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxAvatarBytes {
		return nil, errs.E(errs.TooLarge, "The picture is larger than 5 MB.")
	}
	bad := errs.Fields(map[string]string{"avatar": "Upload a JPEG, PNG, GIF or WebP picture."})
	if !avatarTypes[http.DetectContentType(b)] {
		return nil, bad
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width < 1 || cfg.Height < 1 {
		return nil, bad
	}
	if cfg.Width*cfg.Height > maxPixels {
		return nil, errs.Fields(map[string]string{"avatar": "That picture has too many pixels."})
	}
	img, err := imaging.Decode(bytes.NewReader(b), imaging.AutoOrientation(true))
	if err != nil {
		return nil, bad
	}
	img = imaging.Fill(img, AvatarSize, AvatarSize, imaging.Center, imaging.Lanczos)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// storeAvatar processes and stores an upload, returning its key.
func (s *Service) storeAvatar(ctx context.Context, r io.Reader) (string, error) {
	if s.Files == nil {
		return "", errs.Fields(map[string]string{"avatar": "Pictures cannot be uploaded here."})
	}
	if err := acquire(ctx); err != nil { // decoding is heavy too: share the hash slots
		return "", err
	}
	b, err := avatarImage(r)
	release()
	if err != nil {
		return "", err
	}
	key := files.NewKey("avatars", ".jpg")
	if err := s.Files.Put(ctx, key, bytes.NewReader(b), "image/jpeg"); err != nil {
		return "", err
	}
	return key, nil
}
