package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Info is what Probe reads from a file's container.
type Info struct {
	Format     string // "mp3", "ogg-vorbis", "ogg-opus", "webm-opus", "m4a-aac", "flac", "wav"
	MIME       string // what to serve it as: audio/mpeg, audio/ogg, audio/webm, audio/mp4, audio/flac, audio/wav
	Duration   time.Duration
	SampleRate int
	Channels   int
}

// Formats and the MIME type each is served as.
var mimeOf = map[string]string{
	"mp3":        "audio/mpeg",
	"ogg-vorbis": "audio/ogg",
	"ogg-opus":   "audio/ogg",
	"webm-opus":  "audio/webm",
	"m4a-aac":    "audio/mp4",
	"flac":       "audio/flac",
	"wav":        "audio/wav",
}

// MIME is the type a format (Info.Format, Sniff's) is served as; "" for
// none.
func MIME(format string) string { return mimeOf[format] }

// Limits.
const (
	// MaxDuration is the longest audio Probe accepts at all; the caller's
	// own limit (Info.Check) is normally much smaller.
	MaxDuration = 12 * time.Hour
	// MaxDecodeTime bounds one Peaks call whatever its ctx allows.
	MaxDecodeTime = 2 * time.Minute
	// MaxPeaks is the largest n Peaks accepts.
	MaxPeaks = 10000
	// MaxChannels is the most channels accepted.
	MaxChannels = 8
	minRate     = 1000
	maxRate     = 384000
)

const formatsList = "Upload an MP3, Ogg (Vorbis or Opus), WebM (Opus), M4A (AAC), FLAC or WAV file."

// Errors a user may see (kind Invalid). Probe and Peaks wrap them with
// details for the log; match with errors.Is.
var (
	ErrUnsupported = &errs.Error{Kind: errs.Invalid, Message: "This is not an audio file we can play. " + formatsList}
	ErrRawAAC      = &errs.Error{Kind: errs.Invalid, Message: "Raw .aac files cannot be played everywhere: save it as .m4a instead. " + formatsList}
	ErrAMR         = &errs.Error{Kind: errs.Invalid, Message: "AMR and .3gp phone recordings are not supported. " + formatsList}
	ErrVideo       = &errs.Error{Kind: errs.Invalid, Message: "This file holds video: upload the audio only. " + formatsList}
	ErrCorrupt     = &errs.Error{Kind: errs.Invalid, Message: "This audio file is damaged or cut short: please upload it again."}
	ErrTooLong     = &errs.Error{Kind: errs.Invalid, Message: "This audio is too long."}
)

// ErrNoDecoder is returned by Peaks when the file's codec (AAC) can only be
// decoded by ffmpeg and ffmpeg is not installed: the caller keeps the peaks
// the browser computed. Not a user error.
var ErrNoDecoder = errors.New("audio: no decoder for this codec on this server")

// corrupt wraps ErrCorrupt with a detail for the log.
func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w (%s)", ErrCorrupt, fmt.Sprintf(format, args...))
}

// Check returns an error a user may see when the audio is longer than max.
func (i Info) Check(max time.Duration) error {
	if i.Duration > max {
		return &errs.Error{Kind: errs.Invalid, Err: ErrTooLong,
			Message: fmt.Sprintf("This audio is %s long; the limit is %s.", clock(i.Duration), clock(max))}
	}
	return nil
}

// clock writes d as m:ss or h:mm:ss, whole seconds rounded up.
func clock(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// Probe reads the container of the file r of size bytes: its format, the
// MIME type to serve it as, its duration, sample rate and channels. The
// work is bounded (see the package doc); ctx is checked between steps.
func Probe(ctx context.Context, r io.ReaderAt, size int64) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, err
	}
	if size <= 0 {
		return Info{}, fmt.Errorf("%w (empty file)", ErrUnsupported)
	}
	s := newSrc(ctx, r, size)
	head, err := s.at(0, min64(size, sniffLen))
	if err != nil {
		return Info{}, err
	}
	kind := sniffKind(head)
	if kind == "" {
		return Info{}, refuse(head)
	}
	var info Info
	switch kind {
	case "mp3":
		info, err = probeMP3(s)
	case "ogg":
		info, _, err = probeOgg(s)
	case "webm":
		info, _, err = probeWebM(s)
	case "m4a":
		info, err = probeMP4(s)
	case "flac":
		info, err = probeFLAC(s)
	case "wav":
		info, _, err = probeWAV(s)
	}
	if err != nil {
		return Info{}, err
	}
	return finish(info)
}

// finish checks what every format shares and fills MIME.
func finish(info Info) (Info, error) {
	info.MIME = mimeOf[info.Format]
	switch {
	case info.SampleRate < minRate || info.SampleRate > maxRate:
		return Info{}, corrupt("sample rate %d", info.SampleRate)
	case info.Channels < 1 || info.Channels > MaxChannels:
		return Info{}, corrupt("%d channels", info.Channels)
	case info.Duration <= 0:
		return Info{}, corrupt("no audio")
	case info.Duration > MaxDuration:
		return Info{}, fmt.Errorf("%w (%s)", ErrTooLong, info.Duration)
	}
	return info, nil
}

// durOf is samples at rate as a duration, without overflow.
func durOf(samples uint64, rate int) time.Duration {
	if rate <= 0 {
		return 0
	}
	sec := samples / uint64(rate)
	if sec > uint64(100*MaxDuration/time.Second) {
		return 100 * MaxDuration
	}
	rem := samples % uint64(rate)
	return time.Duration(sec)*time.Second + time.Duration(rem*uint64(time.Second)/uint64(rate))
}

// plausible checks that bytes can carry d of audio at no less than
// floor bytes per second (a rate below what any encoder writes).
func plausible(d time.Duration, bytes int64, floor float64) error {
	if d.Seconds()*floor > float64(bytes) {
		return corrupt("%s of audio in %d bytes", d, bytes)
	}
	return nil
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}
