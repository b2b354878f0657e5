package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
)

// Peaks decodes the file r of size bytes and returns n values 0..255: the
// loudest sample of each of n equal stretches of time, scaled so that the
// loudest stretch is 255 (a file whose loudest sample is below 1/64 of full
// scale is not scaled up, so that near silence stays low). It checks ctx
// between packets and stops at ctx's deadline or after MaxDecodeTime,
// whichever is first. AAC without ffmpeg on PATH is
// ErrNoDecoder.
func Peaks(ctx context.Context, r io.ReaderAt, size int64, n int) ([]uint8, error) {
	if n < 1 || n > MaxPeaks {
		return nil, fmt.Errorf("audio: peaks: n = %d, want 1..%d", n, MaxPeaks)
	}
	ctx, cancel := context.WithTimeout(ctx, MaxDecodeTime)
	defer cancel()
	info, err := Probe(ctx, r, size)
	if err != nil {
		return nil, err
	}
	s := newSrc(ctx, r, size)
	acc := newPeakAcc(n, uint64(info.Duration.Seconds()*float64(info.SampleRate)+0.5))
	switch info.Format {
	case "mp3":
		err = peaksMP3(s, info, acc)
		if errors.Is(err, errMPEG25) {
			err = peaksFFmpeg(ctx, r, size, "mp3", info, acc)
		}
	case "ogg-vorbis", "ogg-opus":
		err = peaksOgg(s, info, acc)
	case "webm-opus":
		err = peaksWebM(s, info, acc)
	case "flac":
		err = peaksFLAC(s, info, acc)
	case "wav":
		err = peaksWAV(s, info, acc)
	case "m4a-aac":
		err = peaksFFmpeg(ctx, r, size, "mov", info, acc)
	}
	if err != nil {
		return nil, err
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, cerr
	}
	return acc.result(), nil
}

// errMPEG25: go-mp3 decodes MPEG-1 and MPEG-2 Layer III, not MPEG-2.5
// (8 to 12 kHz).
var errMPEG25 = errors.New("audio: MPEG-2.5 MP3")

// peakAcc keeps the loudest sample of each of n buckets of a stream of
// total sample frames; frames past total go to the last bucket.
type peakAcc struct {
	n     int
	total uint64
	pos   uint64
	i     int    // current bucket
	next  uint64 // first pos of bucket i+1
	peak  []float32
}

func newPeakAcc(n int, total uint64) *peakAcc {
	if total == 0 {
		total = 1
	}
	return &peakAcc{n: n, total: total, peak: make([]float32, n)}
}

// add takes one sample frame's loudest absolute value (0..1).
func (a *peakAcc) add(v float32) {
	if a.pos >= a.next {
		a.bucket()
	}
	if v > a.peak[a.i] {
		a.peak[a.i] = v
	}
	a.pos++
}

// bucket moves to the bucket of pos: floor(pos*n/total), which runs up
// to ceil((i+1)*total/n).
func (a *peakAcc) bucket() {
	n := uint64(a.n)
	if a.pos >= a.total {
		a.i, a.next = a.n-1, 1<<63
		return
	}
	a.i = int(a.pos * n / a.total)
	a.next = (uint64(a.i+1)*a.total + n - 1) / n
}

func (a *peakAcc) result() []uint8 {
	var top float32
	for _, v := range a.peak {
		top = max(top, v)
	}
	scale := float32(255)
	if top >= 1.0/64 {
		scale = 255 / top
	}
	out := make([]uint8, a.n)
	for i, v := range a.peak {
		out[i] = uint8(math.Round(float64(min(255, max(0, v*scale)))))
	}
	return out
}

func absf(v float32) float32 {
	if v < 0 {
		return -v
	}
	return v
}
