package music

import (
	"context"
	"io"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
)

// AudioDraft is a new audio post as typed: its comment (#tags as a link
// post's) and visibility, and what the browser computed of the file
// (Peaks, Duration), kept only when the server cannot decode the file
// (audio.ErrNoDecoder) and never trusted over the file's own duration.
type AudioDraft struct {
	Comment    string
	Visibility string
	Peaks      []byte        // the browser's waveform (0-255 a bar), or nil
	Duration   time.Duration // the browser's measure, or 0
}

// ShareAudio posts u's audio, read from r (MP3, Ogg Vorbis/Opus,
// WebM/Opus, M4A/AAC, FLAC or WAV, told from its bytes; at most
// MaxAudioBytes and MaxAudioDuration), with d's comment and visibility,
// and returns the new post's id. The file is checked before anything is
// written: bad audio is an errs.Fields error on the field "audio" and
// nothing is stored. The post (kind 'audio', ready = 0) is shown to its
// author only, as processing, until the media.derive job has made its
// waveform; then the kind's OnReady stores peaks and duration_ms and sets
// ready = 1. Seeders: run media.Service.Wait (or the job workers) to
// finish the posts.
func (s *Service) ShareAudio(ctx context.Context, u *auth.User, d AudioDraft, r io.Reader) (int64, error) {
	return 0, errs.E(errs.Internal, "music: audio posts are not wired yet")
}
