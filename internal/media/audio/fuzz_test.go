package audio

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"testing"
	"time"
)

// fuzzSeeds adds the fixtures and the hostile files, each cut to at most
// limit bytes (small inputs keep the fuzzer fast).
func fuzzSeeds(f *testing.F, limit int) {
	for _, fx := range fixtures {
		b := readFixture(f, fx.file)
		f.Add(b[:min(len(b), limit)])
		f.Add(b[:min(len(b)/2, limit/2)])
	}
	for _, b := range hostile(f) {
		f.Add(b[:min(len(b), limit)])
	}
}

// fuzzing reports whether go test -fuzz is generating inputs: there a
// wall-clock bound finds the slow ones (make fuzz, on a quiet machine);
// on the seeds that every go test runs, TestHostile and TestTruncated
// bound the work by allocations instead, which load cannot change.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// FuzzProbe: Sniff and Probe never panic, agree on the format, end fast,
// and give only the errors a user may see (or a clean Info).
func FuzzProbe(f *testing.F) {
	fuzzSeeds(f, 1<<20)
	f.Fuzz(func(t *testing.T, b []byte) {
		format, ok := Sniff(b)
		start := time.Now()
		info, err := Probe(context.Background(), bytes.NewReader(b), int64(len(b)))
		if d := time.Since(start); fuzzing() && d > time.Second {
			t.Errorf("Probe took %s on %d bytes", d, len(b))
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) && !errors.Is(err, ErrTooLong) &&
				!errors.Is(err, ErrRawAAC) && !errors.Is(err, ErrAMR) && !errors.Is(err, ErrVideo) {
				t.Fatalf("Probe error %v is not a user error", err)
			}
			return
		}
		if info.Duration <= 0 || info.Duration > MaxDuration || info.MIME == "" {
			t.Fatalf("Probe = %+v", info)
		}
		if !ok || (format != info.Format && !(format == "ogg-vorbis" || format == "ogg-opus")) {
			t.Fatalf("Sniff = %q, %v; Probe = %q", format, ok, info.Format)
		}
	})
}

// FuzzPeaks: Peaks never panics and gives n values or an error, in
// bounded time.
func FuzzPeaks(f *testing.F) {
	fuzzSeeds(f, 6000)
	f.Fuzz(func(t *testing.T, b []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		t.Setenv("PATH", "") // no ffmpeg: AAC peaks are ErrNoDecoder
		start := time.Now()
		p, err := Peaks(ctx, bytes.NewReader(b), int64(len(b)), 50)
		if d := time.Since(start); fuzzing() && d > 2*time.Second {
			t.Errorf("Peaks took %s on %d bytes", d, len(b))
		}
		if err == nil && len(p) != 50 {
			t.Fatalf("%d peaks", len(p))
		}
	})
}
