package files

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // decoders for the accepted types
	_ "image/jpeg"
	_ "image/png"
	"io"
	"net/http"
	"time"

	_ "golang.org/x/image/webp"

	"github.com/tutti-dev/tutti/internal/errs"
)

// An uploaded picture (an avatar, a race's logo) is read whole within a
// size limit, checked by its content and its header, and decoded only
// within the process's ImageBudget; the app then resizes and re-encodes it
// (which also drops its metadata) before storing it.

// imageTypes are the picture types accepted, as http.DetectContentType
// names them from the content.
var imageTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// BudgetWait is how long an upload waits for the image budget before it
// is told to try again.
const BudgetWait = 20 * time.Second

// ReadImage reads an uploaded picture of at most maxBytes and checks it by
// its content (not its name or declared type) and its header: it returns
// the bytes and the memory that decoding and processing them will hold
// (ProcessBytes). A picture whose decoded image would exceed
// MaxDecodedBytes (a decompression bomb, or a 16-bit one of many pixels)
// is refused before it is decoded. Errors are the form field's.
func ReadImage(r io.Reader, maxBytes int64, field string) ([]byte, int64, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, 0, err
	}
	if int64(len(b)) > maxBytes {
		return nil, 0, errs.Fields(map[string]string{field: fmt.Sprintf("This picture is larger than %d MB: choose a smaller one.", maxBytes>>20)})
	}
	bad := errs.Fields(map[string]string{field: "Upload a JPEG, PNG, GIF or WebP picture."})
	if !imageTypes[http.DetectContentType(b)] {
		return nil, 0, bad
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width < 1 || cfg.Height < 1 {
		return nil, 0, bad
	}
	if DecodedBytes(cfg) > MaxDecodedBytes {
		return nil, 0, errs.Fields(map[string]string{field: ErrImageTooBig.Message})
	}
	return b, ProcessBytes(cfg), nil
}

// Process runs fn (the decoding and processing of a picture ReadImage
// read) holding cost of the budget, waiting up to BudgetWait while other
// pictures hold it. A picture larger than the whole budget is a field
// error; a budget busy for that long asks the client to try again.
func (b *ImageBudget) Process(ctx context.Context, cost int64, field string, fn func() error) error {
	wctx, cancel := context.WithTimeout(ctx, BudgetWait)
	defer cancel()
	if err := b.Acquire(wctx, cost); err != nil {
		switch {
		case errors.Is(err, ErrImageTooBig):
			return errs.Fields(map[string]string{field: ErrImageTooBig.Message})
		case ctx.Err() == nil && wctx.Err() != nil:
			return errs.Slow(5*time.Second, "Many pictures are being processed just now; please try again in a few seconds.")
		}
		return fmt.Errorf("files: image budget: %w", err)
	}
	defer b.Release(cost)
	return fn()
}
