package audio

import (
	"math"
)

// wavFmt is what the fmt chunk says, and where the samples are.
type wavFmt struct {
	float      bool
	bits       int
	channels   int
	rate       int
	blockAlign int
	dataOff    int64
	dataLen    int64
}

// probeWAV walks the RIFF chunks (at most 1024 of them) to fmt and data.
// A data chunk longer than the file is ErrCorrupt (cut short), except the
// sizes 0 and 0xFFFFFFFF that streaming writers leave, and RF64.
func probeWAV(s *src) (Info, wavFmt, error) {
	var w wavFmt
	hdr, err := s.at(0, 12)
	if err != nil {
		return Info{}, w, err
	}
	rf64 := string(hdr[:4]) == "RF64"
	var ds64 int64 = -1
	off := int64(12)
	haveFmt := false
	for i := 0; i < 1024; i++ {
		if off+8 > s.size {
			break
		}
		b, err := s.at(off, 8)
		if err != nil {
			return Info{}, w, err
		}
		id, n := string(b[:4]), int64(u32le(b[4:]))
		body := off + 8
		switch id {
		case "ds64":
			if n < 24 {
				return Info{}, w, corrupt("ds64 chunk of %d bytes", n)
			}
			d, err := s.at(body, 24)
			if err != nil {
				return Info{}, w, err
			}
			ds64 = int64(u64le(d[8:]) & (1<<62 - 1))
		case "fmt ":
			if n < 16 {
				return Info{}, w, corrupt("fmt chunk of %d bytes", n)
			}
			f, err := s.at(body, min64(n, 40))
			if err != nil {
				return Info{}, w, err
			}
			tag := u16le(f)
			if tag == 0xFFFE && len(f) >= 26 { // WAVE_FORMAT_EXTENSIBLE: the subformat's tag
				tag = u16le(f[24:])
			}
			w.channels = int(u16le(f[2:]))
			w.rate = int(u32le(f[4:]))
			w.blockAlign = int(u16le(f[12:]))
			w.bits = int(u16le(f[14:]))
			switch {
			case tag == 1 && (w.bits == 8 || w.bits == 16 || w.bits == 24 || w.bits == 32):
			case tag == 3 && (w.bits == 32 || w.bits == 64):
				w.float = true
			default:
				return Info{}, w, corrupt("WAV format %d with %d bits", tag, w.bits)
			}
			if w.channels < 1 || w.channels > MaxChannels || w.blockAlign != w.channels*w.bits/8 {
				return Info{}, w, corrupt("WAV with %d channels, block %d", w.channels, w.blockAlign)
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return Info{}, w, corrupt("WAV data before fmt")
			}
			w.dataOff = body
			left := s.size - body
			switch {
			case rf64 && n == 0xFFFFFFFF && ds64 >= 0:
				n = ds64
			case n == 0 || n == 0xFFFFFFFF:
				n = left
			}
			if n > left {
				return Info{}, w, corrupt("WAV data of %d bytes, %d in the file", n, left)
			}
			w.dataLen = n - n%int64(w.blockAlign)
			info := Info{Format: "wav", SampleRate: w.rate, Channels: w.channels,
				Duration: durOf(uint64(w.dataLen/int64(w.blockAlign)), w.rate)}
			return info, w, nil
		}
		off = body + n + n&1
	}
	return Info{}, w, corrupt("WAV without data")
}

func peaksWAV(s *src, info Info, acc *peakAcc) error {
	_, w, err := probeWAV(s)
	if err != nil {
		return err
	}
	step := int64(w.blockAlign)
	chunk := (window / step) * step
	bps := w.bits / 8
	for off := int64(0); off < w.dataLen; off += chunk {
		b, err := s.at(w.dataOff+off, min64(chunk, w.dataLen-off))
		if err != nil {
			return err
		}
		if err := s.ctx.Err(); err != nil {
			return err
		}
		for f := 0; f+int(step) <= len(b); f += int(step) {
			var peak float32
			for c := 0; c < w.channels; c++ {
				p := b[f+c*bps:]
				var v float32
				switch {
				case w.float && bps == 4:
					v = math.Float32frombits(u32le(p))
				case w.float:
					v = float32(math.Float64frombits(u64le(p)))
				case bps == 1:
					v = float32(int(p[0])-128) / 128
				case bps == 2:
					v = float32(int16(u16le(p))) / 32768
				case bps == 3:
					v = float32(int32(uint32(p[0])<<8|uint32(p[1])<<16|uint32(p[2])<<24)) / (1 << 31)
				default:
					v = float32(int32(u32le(p))) / (1 << 31)
				}
				if v != v { // NaN
					v = 0
				}
				peak = max(peak, min(absf(v), 1))
			}
			acc.add(peak)
		}
	}
	return nil
}
