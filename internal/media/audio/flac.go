package audio

import (
	"bufio"
	"errors"
	"io"

	"github.com/mewkiz/flac"
)

type flacInfo struct {
	minBlock, maxBlock int
	rate, channels     int
	bits               int
	total              uint64 // 0: unknown
	audioOff           int64
}

// probeFLAC reads STREAMINFO, then finds the last frame header in the file's
// last 64 KiB and checks that it ends where STREAMINFO says the stream
// ends: a cut-short file or a header claiming hours is ErrCorrupt.
func probeFLAC(s *src) (Info, error) {
	fi, err := flacHeader(s)
	if err != nil {
		return Info{}, err
	}
	last, ok, err := flacLastFrame(s, fi)
	if err != nil {
		return Info{}, err
	}
	if !ok {
		return Info{}, corrupt("FLAC without frames")
	}
	total := fi.total
	slack := uint64(fi.maxBlock)
	switch {
	case total == 0:
		total = last
	case last > total+slack || last+slack < total:
		return Info{}, corrupt("FLAC ends at sample %d, STREAMINFO says %d", last, total)
	}
	return Info{Format: "flac", SampleRate: fi.rate, Channels: fi.channels, Duration: durOf(total, fi.rate)}, nil
}

func flacHeader(s *src) (flacInfo, error) {
	var fi flacInfo
	off := int64(4)
	for i := 0; i < 256; i++ {
		h, err := s.at(off, 4)
		if err != nil {
			return fi, err
		}
		typ, n := h[0]&0x7F, int64(u24be(h[1:]))
		if i == 0 {
			if typ != 0 || n < 34 {
				return fi, corrupt("FLAC without STREAMINFO")
			}
			b, err := s.at(off+4, 34)
			if err != nil {
				return fi, err
			}
			fi.minBlock = int(u16be(b))
			fi.maxBlock = int(u16be(b[2:]))
			x := u64be(b[10:])
			fi.rate = int(x >> 44)
			fi.channels = int(x>>41&7) + 1
			fi.bits = int(x>>36&31) + 1
			fi.total = x & (1<<36 - 1)
			if fi.maxBlock < 16 || fi.minBlock > fi.maxBlock || fi.rate < minRate || fi.rate > maxRate || fi.bits < 4 {
				return fi, corrupt("FLAC STREAMINFO: blocks %d..%d, rate %d", fi.minBlock, fi.maxBlock, fi.rate)
			}
		}
		off += 4 + n
		if h[0]&0x80 != 0 {
			fi.audioOff = off
			if off >= s.size {
				return fi, corrupt("FLAC without audio")
			}
			return fi, nil
		}
	}
	return fi, corrupt("FLAC with too many metadata blocks")
}

// flacLastFrame returns the sample just after the last frame whose header
// (with a valid CRC-8) starts in the last 64 KiB of the file.
func flacLastFrame(s *src, fi flacInfo) (end uint64, ok bool, err error) {
	from := max(fi.audioOff, s.size-window)
	b, err := s.at(from, s.size-from)
	if err != nil {
		return 0, false, err
	}
	for i := len(b) - 2; i >= 0; i-- {
		if b[i] != 0xFF || b[i+1]&0xFE != 0xF8 {
			continue
		}
		first, size, ok := flacFrameHeader(b[i:], fi)
		if ok {
			return first + uint64(size), true, nil
		}
	}
	return 0, false, nil
}

// flacFrameHeader parses a frame header at b: its first sample and block
// size, if its CRC-8 holds and it agrees with STREAMINFO.
func flacFrameHeader(b []byte, fi flacInfo) (first uint64, size int, ok bool) {
	if len(b) < 6 {
		return 0, 0, false
	}
	variable := b[1]&1 == 1
	bsCode, srCode := b[2]>>4, b[2]&15
	chCode, ssCode := b[3]>>4, (b[3]>>1)&7
	if bsCode == 0 || srCode == 15 || chCode > 10 || ssCode == 3 || b[3]&1 != 0 {
		return 0, 0, false
	}
	// The header must agree with STREAMINFO (fewer false syncs in audio data).
	if ch := int(chCode) + 1; chCode <= 7 && ch != fi.channels || chCode > 7 && fi.channels != 2 {
		return 0, 0, false
	}
	if bits := [8]int{0, 8, 12, 0, 16, 20, 24, 32}[ssCode]; bits != 0 && bits != fi.bits {
		return 0, 0, false
	}
	if rate := [12]int{0, 88200, 176400, 192000, 8000, 16000, 22050, 24000, 32000, 44100, 48000, 96000}; srCode >= 1 && srCode <= 11 && rate[srCode] != fi.rate {
		return 0, 0, false
	}
	// UTF-8-like coded number.
	p := 4
	c := b[p]
	var n uint64
	var extra int
	switch {
	case c < 0x80:
		n = uint64(c)
	case c&0xE0 == 0xC0:
		n, extra = uint64(c&0x1F), 1
	case c&0xF0 == 0xE0:
		n, extra = uint64(c&0x0F), 2
	case c&0xF8 == 0xF0:
		n, extra = uint64(c&0x07), 3
	case c&0xFC == 0xF8:
		n, extra = uint64(c&0x03), 4
	case c&0xFE == 0xFC:
		n, extra = uint64(c&0x01), 5
	case c == 0xFE:
		n, extra = 0, 6
	default:
		return 0, 0, false
	}
	p++
	if len(b) < p+extra+3 {
		return 0, 0, false
	}
	for k := 0; k < extra; k++ {
		if b[p]&0xC0 != 0x80 {
			return 0, 0, false
		}
		n = n<<6 | uint64(b[p]&0x3F)
		p++
	}
	switch {
	case bsCode == 1:
		size = 192
	case bsCode <= 5:
		size = 576 << (bsCode - 2)
	case bsCode == 6:
		size = int(b[p]) + 1
		p++
	case bsCode == 7:
		size = int(u16be(b[p:])) + 1
		p += 2
	default:
		size = 256 << (bsCode - 8)
	}
	switch srCode {
	case 12:
		p++
	case 13, 14:
		p += 2
	}
	if len(b) < p+1 || crc8(b[:p]) != b[p] || size > fi.maxBlock {
		return 0, 0, false
	}
	if variable {
		return n, size, true
	}
	return n * uint64(fi.maxBlock), size, true
}

func crc8(b []byte) byte {
	var c byte
	for _, x := range b {
		c ^= x
		for i := 0; i < 8; i++ {
			if c&0x80 != 0 {
				c = c<<1 ^ 0x07
			} else {
				c <<= 1
			}
		}
	}
	return c
}

func peaksFLAC(s *src, info Info, acc *peakAcc) error {
	st, err := flac.New(bufio.NewReaderSize(&ctxReader{s.ctx, io.NewSectionReader(s.r, 0, s.size)}, 32<<10))
	if err != nil {
		if cerr := s.ctx.Err(); cerr != nil {
			return cerr
		}
		return corrupt("flac: %v", err)
	}
	scale := float32(int64(1) << (st.Info.BitsPerSample - 1))
	for {
		f, err := st.ParseNext()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if cerr := s.ctx.Err(); cerr != nil {
				return cerr
			}
			if acc.pos > 0 {
				return nil
			}
			return corrupt("flac: %v", err)
		}
		ns := int(f.BlockSize)
		for i := 0; i < ns; i++ {
			var peak float32
			for _, sf := range f.Subframes {
				if i < len(sf.Samples) {
					peak = max(peak, absf(float32(sf.Samples[i])/scale))
				}
			}
			acc.add(min(peak, 1))
		}
	}
}
