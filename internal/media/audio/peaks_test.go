package audio

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// needsFFmpeg skips t unless TUTTI_TEST_FFMPEG=1, and fails it when that
// is set and ffmpeg is missing.
func needsFFmpeg(t *testing.T) {
	t.Helper()
	if os.Getenv("TUTTI_TEST_FFMPEG") == "" {
		t.Skip("set TUTTI_TEST_FFMPEG=1 to run the AAC peaks test (needs Debian's ffmpeg)")
	}
	if _, err := exec.LookPath("ffmpeg"); err != nil {
		t.Fatalf("TUTTI_TEST_FFMPEG is set but ffmpeg is not on PATH: %v", err)
	}
}

func TestPeaksShape(t *testing.T) {
	const n = 40
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			if fx.ffmpeg {
				needsFFmpeg(t)
			}
			b := readFixture(t, fx.file)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p, err := Peaks(ctx, bytes.NewReader(b), int64(len(b)), n)
			if err != nil {
				t.Fatalf("Peaks: %v", err)
			}
			if len(p) != n {
				t.Fatalf("len = %d; want %d", len(p), n)
			}
			if fx.file == "chromium.webm" {
				// The fake microphone loops the tone from wherever it is,
				// and Chromium's gain control fades it: compare with what
				// libopus decodes (testdata/README.md).
				for i := range p {
					if d := int(p[i]) - int(chromiumPeaks[i]); d < -3 || d > 3 {
						t.Fatalf("peaks = %v; want within 3 of libopus's %v", p, chromiumPeaks)
					}
				}
				return
			}
			// Loud first half (buckets 1..18), silent second half (22..39).
			for i := 1; i <= 18; i++ {
				if p[i] < 160 {
					t.Errorf("peak %d = %d in the loud half; want >= 160 (%v)", i, p[i], p)
					break
				}
			}
			for i := 22; i < n; i++ {
				if p[i] > 20 {
					t.Errorf("peak %d = %d in the silent half; want <= 20 (%v)", i, p[i], p)
					break
				}
			}
		})
	}
}

// TestPeaksFFmpegFromFile decodes an M4A given as an *os.File (ffmpeg reads
// the file itself) and as a bytes.Reader (a temp copy).
func TestPeaksFFmpegFromFile(t *testing.T) {
	needsFFmpeg(t)
	f, err := os.Open(filepath.Join("testdata", "tone.m4a"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	p, err := Peaks(context.Background(), f, st.Size(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if p[1] < 160 || p[8] > 20 {
		t.Errorf("peaks = %v; want loud then silent", p)
	}
}

// TestPeaksNoDecoder: without ffmpeg on PATH, AAC peaks are ErrNoDecoder.
func TestPeaksNoDecoder(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	b := readFixture(t, "tone.m4a")
	_, err := Peaks(context.Background(), bytes.NewReader(b), int64(len(b)), 10)
	if !errors.Is(err, ErrNoDecoder) {
		t.Errorf("err = %v; want ErrNoDecoder", err)
	}
}

func TestPeaksBadN(t *testing.T) {
	b := readFixture(t, "tone.wav")
	for _, n := range []int{0, -1, MaxPeaks + 1} {
		if _, err := Peaks(context.Background(), bytes.NewReader(b), int64(len(b)), n); err == nil {
			t.Errorf("n = %d: no error", n)
		}
	}
}

func TestPeaksCancelled(t *testing.T) {
	b := readFixture(t, "tone.flac")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Peaks(ctx, bytes.NewReader(b), int64(len(b)), 10); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
}

// chromiumPeaks are testdata/chromium.webm's 40 peaks as decoded by ffmpeg's
// libopus (the command is in testdata/README.md).
var chromiumPeaks = [40]uint8{186, 196, 178, 154, 141, 134, 130, 124, 118, 113, 109, 104, 99, 95, 91, 87, 83, 79,
	76, 72, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 28, 255}
