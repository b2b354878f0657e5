package media

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	_ "image/gif" // decoders of the accepted types
	"image/jpeg"
	"image/png"
	"io"

	"github.com/disintegration/imaging"
	_ "golang.org/x/image/webp"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
)

// Pictures: JPEG, PNG, GIF and WebP, as http.DetectContentType names them
// from the content. A picture is checked at upload without decoding it:
// its header (the memory its decoding would take: files.DecodedBytes,
// refused over files.MaxDecodedBytes or the whole budget), its structure
// to its end (a truncated file, or one with more after its end, is
// refused) and its bytes (markup inside a picture makes a polyglot that a
// browser could run). The derive job then decodes it once, within the
// process's ImageBudget, and makes each size from it.

// ImageTypes are the picture types accepted.
var ImageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// Messages of a refused picture.
const (
	NotAPicture = "Upload a JPEG, PNG, GIF or WebP picture."
	Truncated   = "This picture is incomplete (cut short, or damaged): choose another."
	Polyglot    = "This picture holds something that is not a picture: choose another."
)

// ImageKind is a kind of picture named name, stored derived under dir,
// with the sizes made by derive (Resize); budget bounds the memory of
// decoding (its size also bounds one picture).
func ImageKind(name, dir string, budget *files.ImageBudget, derive ...Derivation) Kind {
	return Kind{
		Name: name, Dir: dir, MaxBytes: files.MaxImageBytes, Types: ImageTypes,
		Check:     func(ctx context.Context, f io.ReaderAt, size int64) (Meta, error) { return CheckImage(budget, f, size) },
		Derive:    derive,
		WrongType: NotAPicture,
		TooLarge:  files.TooLargeMessage,
	}
}

// CheckImage checks a picture without decoding it (see above), returning
// its width and height.
func CheckImage(budget *files.ImageBudget, f io.ReaderAt, size int64) (Meta, error) {
	cfg, format, err := image.DecodeConfig(bufio.NewReader(sectionOf(f, size)))
	if err != nil || cfg.Width < 1 || cfg.Height < 1 {
		return nil, errs.E(errs.Invalid, NotAPicture)
	}
	if files.DecodedBytes(cfg) > files.MaxDecodedBytes || (budget != nil && files.ProcessBytes(cfg) > budget.Size()) {
		return nil, files.ErrImageTooBig
	}
	if err := wholeImage(format, f, size); err != nil {
		return nil, err
	}
	if hasMarkup(f, size) {
		return nil, errs.E(errs.Invalid, Polyglot)
	}
	return Meta{"width": cfg.Width, "height": cfg.Height, "format": format}, nil
}

// wholeImage checks that a picture's structure runs to its end, and no
// further: a truncated file fails, and so does one with something after
// its end (a PNG followed by a ZIP or a page).
func wholeImage(format string, f io.ReaderAt, size int64) error {
	cut := errs.E(errs.Invalid, Truncated)
	more := errs.E(errs.Invalid, Polyglot)
	tail := make([]byte, min(size, 16))
	if _, err := f.ReadAt(tail, size-int64(len(tail))); err != nil {
		return cut
	}
	switch format {
	case "png":
		// Chunks: length, type, data, CRC; IEND last.
		off := int64(8)
		hdr := make([]byte, 8)
		for {
			if _, err := f.ReadAt(hdr, off); err != nil {
				return cut
			}
			n := int64(binary.BigEndian.Uint32(hdr))
			off += 12 + n
			if off > size {
				return cut
			}
			if string(hdr[4:]) == "IEND" {
				break
			}
		}
		if off != size {
			return more
		}
	case "jpeg":
		// Ends with EOI (FF D9); camera padding of zero bytes may follow.
		t := bytes.TrimRight(tail, "\x00")
		if !bytes.HasSuffix(t, []byte{0xFF, 0xD9}) {
			return cut
		}
	case "gif":
		return wholeGIF(f, size)
	case "webp":
		// RIFF size + 8 is the file's (one padding byte allowed).
		h := make([]byte, 8)
		if _, err := f.ReadAt(h, 0); err != nil {
			return cut
		}
		n := int64(binary.LittleEndian.Uint32(h[4:])) + 8
		switch {
		case n > size:
			return cut
		case n < size-1:
			return more
		}
	default:
		return errs.E(errs.Invalid, NotAPicture)
	}
	return nil
}

// markup are byte strings that make a picture something a browser or a
// server could run when read as another type (lower case).
var markup = [][]byte{[]byte("<script"), []byte("<html"), []byte("<!doctype"), []byte("<?php"), []byte("<iframe"), []byte("<svg"), []byte("<body"), []byte("<object"), []byte("<embed")}

// hasMarkup reports whether f holds any of markup, in any case. Picture
// data holds none by chance: 7 given bytes at a place are 1 in 2^56.
func hasMarkup(f io.ReaderAt, size int64) bool {
	const chunk, overlap = 64 << 10, 16
	buf := make([]byte, chunk+overlap)
	low := make([]byte, chunk+overlap)
	for off := int64(0); off < size; off += chunk {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if err != nil && err != io.EOF {
			return true // unreadable: refuse
		}
		b := buf[:n]
		if bytes.IndexByte(b, '<') < 0 {
			continue
		}
		l := low[:n]
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			l[i] = c
		}
		for _, m := range markup {
			if bytes.Contains(l, m) {
				return true
			}
		}
	}
	return false
}

// Fit is how Resize fits a picture in its box.
type Fit int

const (
	// Fill crops the picture to the box's shape (centred) and scales it to
	// the box (an avatar's square).
	Fill Fit = iota
	// Within scales the picture down to fit the box, keeping its shape;
	// never enlarged (a logo).
	Within
)

// Format is a derived picture's encoding.
type Format int

const (
	JPEG Format = iota // quality 85, no metadata
	PNG                // best compression, transparency kept
)

// Resize is a derivation that makes a w x h picture (fitted by fit,
// encoded as format) from an original picture, decoding it within budget.
func Resize(name string, budget *files.ImageBudget, w, h int, fit Fit, format Format) Derivation {
	return Derivation{Name: name, Make: func(ctx context.Context, src Source) (Output, error) {
		return resize(ctx, budget, src, w, h, fit, format)
	}}
}

func resize(ctx context.Context, budget *files.ImageBudget, src Source, w, h int, fit Fit, format Format) (Output, error) {
	cfg, _, err := image.DecodeConfig(bufio.NewReader(sectionOf(src.R, src.Size)))
	if err != nil {
		return Output{}, errs.E(errs.Invalid, NotAPicture)
	}
	cost := files.ProcessBytes(cfg)
	if err := budget.Acquire(ctx, cost); err != nil {
		return Output{}, err // ErrImageTooBig is Invalid: the upload fails
	}
	defer budget.Release(cost)
	img, err := imaging.Decode(bufio.NewReader(sectionOf(src.R, src.Size)), imaging.AutoOrientation(true))
	if err != nil {
		return Output{}, errs.E(errs.Invalid, NotAPicture)
	}
	switch bd := img.Bounds(); {
	case fit == Fill:
		img = imaging.Fill(img, w, h, imaging.Center, imaging.Lanczos)
	case bd.Dx() > w || bd.Dy() > h:
		img = imaging.Fit(img, w, h, imaging.Lanczos)
	}
	var out bytes.Buffer
	o := Output{Meta: Meta{"width": img.Bounds().Dx(), "height": img.Bounds().Dy()}}
	switch format {
	case PNG:
		err = (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, img)
		o.Type, o.Ext = "image/png", ".png"
	default:
		err = jpeg.Encode(&out, img, &jpeg.Options{Quality: 85})
		o.Type, o.Ext = "image/jpeg", ".jpg"
	}
	if err != nil {
		return Output{}, fmt.Errorf("media: encode: %w", err)
	}
	o.Data = out.Bytes()
	return o, nil
}

// wholeGIF walks a GIF's blocks to its trailer, which must end the file,
// past at least one image.
func wholeGIF(f io.ReaderAt, size int64) error {
	cut := errs.E(errs.Invalid, Truncated)
	r := bufio.NewReader(sectionOf(f, size))
	var off int64
	read := func(n int) ([]byte, error) {
		b := make([]byte, n)
		_, err := io.ReadFull(r, b)
		off += int64(n)
		return b, err
	}
	skip := func(n int) error {
		m, err := r.Discard(n)
		off += int64(m)
		return err
	}
	table := func(flags byte) error { // a colour table, if flagged
		if flags&0x80 != 0 {
			return skip(3 << (flags&7 + 1))
		}
		return nil
	}
	subBlocks := func() error {
		for {
			n, err := r.ReadByte()
			off++
			if err != nil {
				return err
			}
			if n == 0 {
				return nil
			}
			if err := skip(int(n)); err != nil {
				return err
			}
		}
	}
	h, err := read(13) // header and logical screen descriptor
	if err != nil {
		return cut
	}
	if err := table(h[10]); err != nil {
		return cut
	}
	images := 0
	for {
		b, err := r.ReadByte()
		off++
		if err != nil {
			return cut
		}
		switch b {
		case 0x21: // extension: its label, then sub-blocks
			if err := skip(1); err != nil || subBlocks() != nil {
				return cut
			}
		case 0x2C: // an image: descriptor, colour table, LZW code size, data
			d, err := read(9)
			if err != nil || table(d[8]) != nil || skip(1) != nil || subBlocks() != nil {
				return cut
			}
			images++
		case 0x3B: // the trailer
			if images == 0 {
				return cut
			}
			if off != size {
				return errs.E(errs.Invalid, Polyglot)
			}
			return nil
		default:
			return errs.E(errs.Invalid, NotAPicture)
		}
	}
}
