package auth

import (
	"bytes"
	"context"
	"image/jpeg"
	"io"

	"github.com/disintegration/imaging"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
)

// AvatarSize is the side of the stored square picture.
const AvatarSize = 256

// avatarImage decodes a checked upload, crops it to a centred square of
// AvatarSize and re-encodes it as JPEG, which also drops any metadata.
func avatarImage(b []byte) ([]byte, error) {
	img, err := imaging.Decode(bytes.NewReader(b), imaging.AutoOrientation(true))
	if err != nil {
		return nil, errs.Fields(map[string]string{"avatar": "Upload a JPEG, PNG, GIF or WebP picture."})
	}
	img = imaging.Fill(img, AvatarSize, AvatarSize, imaging.Center, imaging.Lanczos)
	var out bytes.Buffer
	if err := jpeg.Encode(&out, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// processAvatar reads, checks and converts an upload, decoding it only
// within the image budget shared by every upload of the process.
func processAvatar(ctx context.Context, budget *files.ImageBudget, r io.Reader) ([]byte, error) {
	b, cost, err := files.ReadImage(r, MaxAvatarBytes, "avatar")
	if err != nil {
		return nil, err
	}
	var out []byte
	err = budget.Process(ctx, cost, "avatar", func() error {
		if err := acquire(ctx); err != nil { // decoding is heavy too: share the hash slots
			return err
		}
		defer release()
		out, err = avatarImage(b)
		return err
	})
	return out, err
}

// storeAvatar processes and stores an upload, returning its key.
func (s *Service) storeAvatar(ctx context.Context, r io.Reader) (string, error) {
	if s.Files == nil {
		return "", errs.Fields(map[string]string{"avatar": "Pictures cannot be uploaded here."})
	}
	b, err := processAvatar(ctx, s.images, r)
	if err != nil {
		return "", err
	}
	key := files.NewKey("avatars", ".jpg")
	if err := s.Files.Put(ctx, key, bytes.NewReader(b), "image/jpeg"); err != nil {
		return "", err
	}
	return key, nil
}
