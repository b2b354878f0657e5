package auth

import (
	"bytes"
	"context"
	"errors"
	"image"
	_ "image/gif" // decoders for the accepted types
	"image/jpeg"
	_ "image/png"
	"io"
	"net/http"
	"time"

	"github.com/disintegration/imaging"
	_ "golang.org/x/image/webp"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
)

// AvatarSize is the side of the stored square picture.
const AvatarSize = 256

// budgetWait is how long an upload waits for the image budget before it is
// told to try again.
const budgetWait = 20 * time.Second

var avatarTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// readAvatar reads an upload and checks it by its content (not its name or
// declared type) and its header: it returns the bytes and the memory that
// decoding and cropping it will hold. A picture whose decoded image would
// exceed files.MaxDecodedBytes (a decompression bomb, or a 16-bit one of
// many pixels) is refused before it is decoded.
func readAvatar(r io.Reader) ([]byte, int64, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxAvatarBytes+1))
	if err != nil {
		return nil, 0, err
	}
	if len(b) > MaxAvatarBytes {
		return nil, 0, errs.E(errs.TooLarge, "The picture is larger than 5 MB.")
	}
	bad := errs.Fields(map[string]string{"avatar": "Upload a JPEG, PNG, GIF or WebP picture."})
	if !avatarTypes[http.DetectContentType(b)] {
		return nil, 0, bad
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width < 1 || cfg.Height < 1 {
		return nil, 0, bad
	}
	if files.DecodedBytes(cfg) > files.MaxDecodedBytes {
		return nil, 0, tooBig()
	}
	return b, files.ProcessBytes(cfg), nil
}

func tooBig() error {
	return errs.Fields(map[string]string{"avatar": files.ErrImageTooBig.Message})
}

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
	b, cost, err := readAvatar(r)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, budgetWait)
	defer cancel()
	if err := budget.Acquire(wctx, cost); err != nil {
		switch {
		case errors.Is(err, files.ErrImageTooBig):
			return nil, tooBig()
		case ctx.Err() == nil && wctx.Err() != nil:
			return nil, errs.Slow(5*time.Second, "Many pictures are being processed just now; please try again in a few seconds.")
		}
		return nil, err
	}
	defer budget.Release(cost)
	if err := acquire(ctx); err != nil { // decoding is heavy too: share the hash slots
		return nil, err
	}
	defer release()
	return avatarImage(b)
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
