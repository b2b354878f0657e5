package music

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/media/audio"
)

// An audio post's file goes through the core's media path as the kind
// AudioKind (its ref: the post's id): the form streams it to a temporary
// file (media.ReadForm), its format is told from its bytes (audio.Sniff)
// and its container read whole (audio.Probe: duration, truncation,
// polyglots, video tracks) before anything is written; its original is
// kept privately and served only by audioServe once the Service says the
// viewer may see the post. The media.derive job decodes it into Bars
// peaks, off the request path; OnReady (onAudioReady) stores them with the
// file's own duration and shows the post to everyone it is meant for.
const (
	// AudioKind is the media kind of an audio post's file.
	AudioKind = "music-audio"
	// MaxAudioBytes and MaxAudioDuration are an audio's limits.
	MaxAudioBytes    = 50 << 20
	MaxAudioDuration = 15 * time.Minute
	// Bars is how many peaks a waveform has.
	Bars = 200
	// waveVariant is the derivation that makes the waveform.
	waveVariant = "waveform"
)

// refusedType is what the kind's Sniff names a file audio.Sniff refuses:
// taken in only so that Check says why (whyRefused), never kept.
const refusedType = "application/x-refused-audio"

// whyRefused is the error, for the field, of a file whose first bytes
// audio.Sniff refuses (raw AAC, AMR and .3gp, anything else): its own
// message (audio.Probe's); nil for a file Sniff takes.
func whyRefused(ctx context.Context, f io.ReaderAt, size int64) error {
	head := make([]byte, min(size, media.HeadBytes))
	if _, err := f.ReadAt(head, 0); err != nil && err != io.EOF {
		return err
	}
	if _, ok := audio.Sniff(head); ok {
		return nil
	}
	if _, err := audio.Probe(ctx, f, size); errs.KindOf(err) == errs.Invalid {
		return err
	}
	return audio.ErrUnsupported
}

// audioKind is music's media kind for audio posts.
func (s *Service) audioKind() media.Kind {
	types := []string{"audio/mpeg", "audio/ogg", "audio/webm", "audio/mp4", "audio/flac", "audio/wav", refusedType}
	return media.Kind{
		Name: AudioKind, Dir: "music-audio", MaxBytes: MaxAudioBytes, Types: types,
		Sniff: func(head []byte) string {
			if f, ok := audio.Sniff(head); ok {
				return audio.MIME(f)
			}
			return refusedType
		},
		Check: func(ctx context.Context, f io.ReaderAt, size int64) (media.Meta, error) {
			if err := whyRefused(ctx, f, size); err != nil {
				return nil, err
			}
			info, err := audio.Probe(ctx, f, size)
			if err == nil {
				err = info.Check(MaxAudioDuration)
			}
			if err != nil {
				return nil, err
			}
			return media.Meta{"duration_ms": info.Duration.Milliseconds(), "format": info.Format}, nil
		},
		Derive:    []media.Derivation{{Name: waveVariant, Private: true, Make: makeWaveform}},
		OnReady:   s.onAudioReady,
		OnFailed:  s.onAudioFailed,
		WrongType: audio.ErrUnsupported.Message,
		TooLarge:  fmt.Sprintf("This file is larger than %d MB: choose a smaller one, or a shorter recording.", MaxAudioBytes>>20),
	}
}

// makeWaveform decodes the original into Bars peaks (the job's
// derivation). A file this server has no decoder for (AAC without ffmpeg)
// gives no peaks: the post keeps those the browser sent. A stream the
// decoder cannot read (errs.Invalid) refuses the file: the upload fails
// and onAudioFailed tells its author (unless their browser could read it).
func makeWaveform(ctx context.Context, src media.Source) (media.Output, error) {
	peaks, err := audio.Peaks(ctx, src.R, src.Size, Bars)
	if errors.Is(err, audio.ErrNoDecoder) {
		// Probe read the container whole; a codec this server cannot
		// decode still plays in browsers: the post shows the browser's
		// peaks (or none).
		return media.Output{Data: []byte{0}, Type: "application/octet-stream", Ext: ".peaks",
			Meta: media.Meta{"decoded": false}}, nil
	}
	if err != nil {
		return media.Output{}, err
	}
	return media.Output{Data: peaks, Type: "application/octet-stream", Ext: ".peaks",
		Meta: media.Meta{"decoded": true, "peaks": base64.StdEncoding.EncodeToString(peaks)}}, nil
}

// onAudioReady shows an audio post once its waveform is made: its peaks
// (the browser's when the server could not decode it), its duration (the
// file's own, as Probe read it) and ready.
func (s *Service) onAudioReady(ctx context.Context, f *media.File) error {
	v := f.Derived[waveVariant]
	if v == nil {
		return fmt.Errorf("music: audio %d ready without its waveform", f.ID)
	}
	var peaks []byte
	if enc, ok := v.Meta["peaks"].(string); ok {
		b, err := base64.StdEncoding.DecodeString(enc)
		if err != nil {
			return fmt.Errorf("music: audio %d: peaks: %w", f.ID, err)
		}
		peaks = b
	}
	ms, _ := f.Meta["duration_ms"].(float64) // JSON
	err := s.write(ctx, func(ctx context.Context, tx *db.Tx) error {
		return s.store.audioReady(ctx, tx, f.Ref, f.ID, peaks, int64(ms))
	})
	if errs.KindOf(err) == errs.NotFound { // the post is gone
		return nil
	}
	return err
}

// onAudioFailed is told that an audio post's file could not be read (its
// waveform job refused it, or gave up): the post shows its author "could
// not read this audio" with a delete button, or, with peaks from the
// browser (which could read it), is shown as ready with them.
func (s *Service) onAudioFailed(ctx context.Context, f *media.File) error {
	ms, _ := f.Meta["duration_ms"].(float64) // JSON
	err := s.write(ctx, func(ctx context.Context, tx *db.Tx) error {
		return s.store.audioFailed(ctx, tx, f.Ref, f.ID, int64(ms))
	})
	if errs.KindOf(err) == errs.NotFound { // the post is gone, or not processing
		return nil
	}
	return err
}
