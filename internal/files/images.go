package files

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"sync"

	"golang.org/x/sync/semaphore"

	"github.com/tutti-dev/tutti/internal/errs"
)

// A picture is judged by the memory its decoding allocates, read from its
// header before decoding: a 380 KB PNG of 7000 x 7000 pixels at 16 bits per
// channel decodes to 392 MB. Counting pixels alone misses the bit depth.
const (
	// MaxDecodedBytes is the most a picture may take once decoded: 4096 x
	// 4096 RGBA at 8 bits per channel (64 MiB).
	MaxDecodedBytes = 64 << 20
	// DefaultImageBudget is the memory the decoding and processing of every
	// picture of the process may hold at once.
	DefaultImageBudget = 256 << 20
)

// DecodedBytes is the size of the image the decoder allocates for a picture
// with header cfg: pixels x bytes per pixel of its colour model (a 16-bit
// RGBA PNG: 8 bytes a pixel). An unknown model counts as the widest, 8.
func DecodedBytes(cfg image.Config) int64 {
	px := int64(cfg.Width) * int64(cfg.Height)
	var bpp int64
	switch cfg.ColorModel {
	case color.RGBA64Model, color.NRGBA64Model:
		bpp = 8
	case color.RGBAModel, color.NRGBAModel, color.CMYKModel, color.NYCbCrAModel:
		bpp = 4
	case color.YCbCrModel:
		bpp = 3 // at most: 4:4:4 (4:2:0 takes half)
	case color.Gray16Model, color.Alpha16Model:
		bpp = 2
	case color.GrayModel, color.AlphaModel:
		bpp = 1
	default:
		if _, ok := cfg.ColorModel.(color.Palette); ok {
			bpp = 1
		} else {
			bpp = 8
		}
	}
	return px * bpp
}

// ProcessBytes is what decoding a picture and making a smaller copy of it
// holds at its peak: the decoded image and two 8-bit RGBA working copies
// (one turned upright by its EXIF orientation, one cropped).
func ProcessBytes(cfg image.Config) int64 {
	return DecodedBytes(cfg) + 8*int64(cfg.Width)*int64(cfg.Height)
}

// ImageBudget bounds the memory that picture decoding holds at once, across
// every upload that shares it (one per process): each acquires what it will
// allocate before decoding, and waits while others hold the rest.
type ImageBudget struct {
	sem  *semaphore.Weighted
	size int64

	mu         sync.Mutex
	used, peak int64
}

// NewImageBudget makes a budget of size bytes.
func NewImageBudget(size int64) *ImageBudget {
	return &ImageBudget{sem: semaphore.NewWeighted(size), size: size}
}

// ErrImageTooBig refuses a picture whose decoding would take more than
// MaxDecodedBytes, or more than the whole budget.
var ErrImageTooBig = errs.E(errs.Invalid, "That picture is too large to process: use one of at most 4096 x 4096 pixels.")

// Acquire reserves n bytes, waiting (as long as ctx allows) while other
// pictures hold the budget; n larger than the whole budget is refused.
func (b *ImageBudget) Acquire(ctx context.Context, n int64) error {
	if n > b.size {
		return ErrImageTooBig
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return err
	}
	b.mu.Lock()
	b.used += n
	b.peak = max(b.peak, b.used)
	b.mu.Unlock()
	return nil
}

// Release returns n bytes acquired before.
func (b *ImageBudget) Release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
	b.sem.Release(n)
}

// Size is the budget's size in bytes.
func (b *ImageBudget) Size() int64 { return b.size }

// Peak is the most that was ever held at once.
func (b *ImageBudget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
}

// A form with a picture (a race's logo, an account's avatar) is read by
// media.ReadForm within these bounds.

const (
	// MaxImageBytes is the largest picture a form takes: a phone's photo.
	// It is scaled down and re-encoded by the app.
	MaxImageBytes = 20 << 20
	// ImageFormBody is the body limit of a route with a picture form: a
	// picture over the limit is still read past, up to this, so that the
	// form can be answered with its fields.
	ImageFormBody = 64 << 20
)

// TooLargeMessage is what a form says beside a picture over MaxImageBytes
// (and what forms.js says before it is sent).
var TooLargeMessage = fmt.Sprintf("This picture is larger than %d MB: choose a smaller one (or a photo at a lower resolution).", MaxImageBytes>>20)
