package audio

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fixture is a file in testdata with what is true of it (testdata/README.md
// says how each was made). The tone files are 2.5 s: a loud 440 Hz sine for
// the first 1.25 s, then silence.
type fixture struct {
	file     string
	format   string
	rate     int
	channels int
	dur      time.Duration
	ffmpeg   bool // Peaks needs ffmpeg
}

var fixtures = []fixture{
	{"tone.wav", "wav", 8000, 1, 2500 * time.Millisecond, false},
	{"tone-cbr.mp3", "mp3", 44100, 1, 2500 * time.Millisecond, false},
	{"tone-vbr.mp3", "mp3", 44100, 1, 2500 * time.Millisecond, false},
	{"tone-id3.mp3", "mp3", 44100, 1, 2500 * time.Millisecond, false},
	{"tone-8k.mp3", "mp3", 8000, 1, 2500 * time.Millisecond, true},
	{"tone.ogg", "ogg-vorbis", 22050, 1, 2500 * time.Millisecond, false},
	{"tone-stereo.ogg", "ogg-vorbis", 44100, 2, 2500 * time.Millisecond, false},
	{"tone.opus", "ogg-opus", 48000, 1, 2500 * time.Millisecond, false},
	{"tone-stereo.opus", "ogg-opus", 48000, 2, 2500 * time.Millisecond, false},
	{"tone.webm", "webm-opus", 48000, 1, 2500 * time.Millisecond, false},
	{"tone.m4a", "m4a-aac", 22050, 1, 2500 * time.Millisecond, true},
	{"tone-frag.m4a", "m4a-aac", 22050, 1, 2500 * time.Millisecond, true},
	{"tone.flac", "flac", 16000, 1, 2500 * time.Millisecond, false},
	{"tone-stereo.flac", "flac", 22050, 2, 2500 * time.Millisecond, false},
	{"tone-float.wav", "wav", 2000, 2, 2500 * time.Millisecond, false},
	{"chromium.webm", "webm-opus", 48000, 1, chromiumDur, false},
}

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestSniffProbe(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			b := readFixture(t, fx.file)
			got, ok := Sniff(b[:min(len(b), 512)])
			if !ok || got != fx.format {
				t.Errorf("Sniff = %q, %v; want %q", got, ok, fx.format)
			}
			info, err := Probe(context.Background(), bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatalf("Probe: %v", err)
			}
			if info.Format != fx.format || info.MIME != mimeOf[fx.format] || info.SampleRate != fx.rate || info.Channels != fx.channels {
				t.Errorf("Probe = %+v; want %s, %d Hz, %d channels", info, fx.format, fx.rate, fx.channels)
			}
			if d := info.Duration - fx.dur; d < -50*time.Millisecond || d > 50*time.Millisecond {
				t.Errorf("Duration = %s; want %s ± 50ms", info.Duration, fx.dur)
			}
		})
	}
}

func TestRefused(t *testing.T) {
	amr := append([]byte("#!AMR\n"), bytes.Repeat([]byte{0x7C}, 50)...)
	jpeg := readFixture(t, "cover.jpg")
	poly := append(append([]byte{}, jpeg...), readFixture(t, "tone-cbr.mp3")...)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"raw ADTS aac", readFixture(t, "tone.aac"), ErrRawAAC},
		{"3gp", readFixture(t, "tone.3gp"), ErrAMR},
		{"amr", amr, ErrAMR},
		{"empty", nil, ErrUnsupported},
		{"jpeg", jpeg, ErrUnsupported},
		{"jpeg with an mp3 appended", poly, ErrUnsupported},
		{"text", []byte("hello, this is not audio at all"), ErrUnsupported},
		{"random", randomBytes(4096, 1), ErrUnsupported},
		{"video mp4", readFixture(t, "video.mp4"), ErrVideo},
		{"video webm", readFixture(t, "video.webm"), ErrVideo},
		{"webm vorbis", readFixture(t, "vorbis.webm"), ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if f, ok := Sniff(tt.data); ok && tt.want != ErrVideo && tt.want != ErrUnsupported {
				t.Errorf("Sniff = %q, ok; want not ok", f)
			}
			_, err := Probe(context.Background(), bytes.NewReader(tt.data), int64(len(tt.data)))
			if !errors.Is(err, tt.want) {
				t.Errorf("Probe error = %v; want %v", err, tt.want)
			}
			_, err = Peaks(context.Background(), bytes.NewReader(tt.data), int64(len(tt.data)), 100)
			if !errors.Is(err, tt.want) {
				t.Errorf("Peaks error = %v; want %v", err, tt.want)
			}
		})
	}
}

func randomBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	x := seed*0x9E3779B97F4A7C15 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	return b
}

// chromiumDur is testdata/chromium.webm's length: 43 Opus packets of 60 ms
// (ffprobe -show_packets: the last at 2.52 s; ffmpeg decodes 2.58 s).
const chromiumDur = 2580 * time.Millisecond

func TestInfoCheck(t *testing.T) {
	info := Info{Duration: 10*time.Minute + 400*time.Millisecond}
	if err := info.Check(10 * time.Minute); !errors.Is(err, ErrTooLong) {
		t.Errorf("Check(10m) = %v; want ErrTooLong", err)
	} else if want := "This audio is 10:01 long; the limit is 10:00."; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Check(10m) = %q; want %q", err, want)
	}
	if got := clock(2*time.Hour + 3*time.Second); got != "2:00:03" {
		t.Errorf("clock = %q; want 2:00:03", got)
	}
	if err := info.Check(11 * time.Minute); err != nil {
		t.Errorf("Check(11m) = %v; want nil", err)
	}
}
