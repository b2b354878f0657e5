package media

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// Meta is what a check or a derivation learnt of a file (a picture's
// width and height, a track's duration), kept as JSON.
type Meta map[string]any

// Kind is a kind of upload an app accepts, declared by the app.
type Kind struct {
	// Name is the kind's name in media_files.kind and the derive job ("avatar").
	Name string
	// Dir is where its derived public files are stored ("avatars").
	Dir string
	// MaxBytes is the largest file accepted.
	MaxBytes int64
	// Types are the accepted content types, as Sniff names them.
	Types []string
	// Sniff names a file's type from its first bytes (up to HeadBytes);
	// nil: http.DetectContentType.
	Sniff func(head []byte) string
	// Check reads the whole file (its type accepted) and returns what it
	// learnt, or an error: errs.Invalid with the message to show beside the
	// field. Nil: no check beyond the type.
	Check func(ctx context.Context, f io.ReaderAt, size int64) (Meta, error)
	// Derive is what the derive job makes from an original.
	Derive []Derivation
	// OnReady is called by the job once every derivation is stored: the
	// app shows f from now on (an idempotent write: it may run twice). It
	// is not called for an upload superseded by a newer one of the same
	// (kind, ref).
	OnReady func(ctx context.Context, f *File) error
	// OnFailed is called by the job once the upload is marked failed: a
	// derivation refused it (errs.Invalid), the original is missing, or
	// the job's last attempt failed. f.Meta["error"] says why. The app
	// shows its author that the file could not be read (an idempotent
	// write). nil: nobody is told.
	OnFailed func(ctx context.Context, f *File) error

	// Messages shown beside the field; "" takes the default.
	WrongType string // the type is not one of Types
	TooLarge  string // over MaxBytes
}

// Derivation is one file made from an original by the derive job.
type Derivation struct {
	Name    string // the variant: "256", "waveform"
	Private bool   // stored under PrivatePrefix (else public, under the kind's Dir)
	// Make makes the file from the original (src: its bytes). An error of
	// kind errs.Invalid marks the upload failed at once; others are
	// retried, and mark it failed on the job's last attempt.
	Make func(ctx context.Context, src Source) (Output, error)
}

// Source is an original given to a Derivation.
type Source struct {
	R    io.ReaderAt
	Size int64
	Type string
	Meta Meta
}

// Output is a derived file.
type Output struct {
	Data []byte
	Type string // its content type
	Ext  string // the key's extension (".jpg")
	Meta Meta
}

// HeadBytes is how much of a file's start is kept for Sniff.
const HeadBytes = 4096

func (k *Kind) sniff(head []byte) string {
	if k.Sniff != nil {
		return k.Sniff(head)
	}
	return http.DetectContentType(head)
}

func (k *Kind) accepts(typ string) bool { return slices.Contains(k.Types, typ) }

func (k *Kind) wrongType() string {
	if k.WrongType != "" {
		return k.WrongType
	}
	return "This type of file is not accepted here."
}

func (k *Kind) tooLarge() string {
	if k.TooLarge != "" {
		return k.TooLarge
	}
	return fmt.Sprintf("This file is larger than %d MB: choose a smaller one.", k.MaxBytes>>20)
}

// extOf is the extension of a key for a content type.
func extOf(typ string) string {
	switch typ {
	case "image/jpeg":
		return ".jpg"
	case "image/png":
		return ".png"
	case "image/gif":
		return ".gif"
	case "image/webp":
		return ".webp"
	case "audio/mpeg":
		return ".mp3"
	case "audio/ogg", "application/ogg":
		return ".ogg"
	case "audio/flac", "audio/x-flac":
		return ".flac"
	case "audio/wav", "audio/x-wav", "audio/wave":
		return ".wav"
	case "audio/webm", "video/webm":
		return ".webm"
	case "audio/mp4", "audio/x-m4a", "video/mp4":
		return ".m4a"
	}
	return ".bin"
}
