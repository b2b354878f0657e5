package audio

import (
	"bytes"
	"context"
	"testing"
)

// BenchmarkProbe and BenchmarkPeaks run on each fixture:
//
//	go test -run '^$' -bench . -benchmem ./internal/media/audio/
func BenchmarkProbe(b *testing.B) {
	for _, fx := range fixtures {
		data := readFixture(b, fx.file)
		b.Run(fx.file, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Probe(context.Background(), bytes.NewReader(data), int64(len(data))); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPeaks(b *testing.B) {
	for _, fx := range fixtures {
		data := readFixture(b, fx.file)
		b.Run(fx.file, func(b *testing.B) {
			if fx.ffmpeg {
				if _, err := Peaks(context.Background(), bytes.NewReader(data), int64(len(data)), 100); err != nil {
					b.Skipf("no AAC decoder: %v", err)
				}
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Peaks(context.Background(), bytes.NewReader(data), int64(len(data)), 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
