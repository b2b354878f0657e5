package audio

import (
	"github.com/pion/opus"
)

// opusPeaks decodes Opus packets at 48 kHz into a peakAcc, dropping the
// first preSkip samples.
type opusPeaks struct {
	dec      opus.Decoder
	channels int
	skip     int64
	out      []float32
	acc      *peakAcc
}

func newOpusPeaks(channels int, preSkip int64, acc *peakAcc) (*opusPeaks, error) {
	if channels > 2 {
		// pion/opus decodes mono and stereo (mapping family 0) only.
		return nil, ErrNoDecoder
	}
	d, err := opus.NewDecoderWithOutput(48000, channels)
	if err != nil {
		return nil, corrupt("opus: %v", err)
	}
	// 120 ms at 48 kHz, the longest packet.
	return &opusPeaks{dec: d, channels: channels, skip: preSkip, out: make([]float32, 5760*channels), acc: acc}, nil
}

func (o *opusPeaks) decode(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	n, err := o.dec.DecodeToFloat32(p, o.out)
	if err != nil {
		return corrupt("opus: %v", err)
	}
	ch := o.channels
	for i := 0; i < n; i++ {
		if o.skip > 0 {
			o.skip--
			continue
		}
		var peak float32
		for c := 0; c < ch; c++ {
			peak = max(peak, absf(o.out[i*ch+c]))
		}
		o.acc.add(min(peak, 1))
	}
	return nil
}
