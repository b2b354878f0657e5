package audio

import (
	"bytes"
	"fmt"
	"io"

	"github.com/hajimehoshi/go-mp3"
)

// mp3Frame is a parsed MPEG audio Layer III frame header.
type mp3Frame struct {
	mpeg1    bool
	rate     int
	bitrate  int // kbit/s
	size     int // bytes, header included
	samples  int // per channel
	channels int
	sideInfo int
}

var (
	mp3Rates     = [3][3]int{{44100, 48000, 32000}, {22050, 24000, 16000}, {11025, 12000, 8000}}
	mp3BitrateV1 = [15]int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
	mp3BitrateV2 = [15]int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
)

func isMP3Header(h uint32) bool {
	_, ok := parseMP3(h)
	return ok
}

// parseMP3 parses a 4-byte Layer III frame header (free bitrate refused).
func parseMP3(h uint32) (mp3Frame, bool) {
	if h>>21 != 0x7FF {
		return mp3Frame{}, false
	}
	ver := (h >> 19) & 3 // 0: 2.5, 1: reserved, 2: MPEG-2, 3: MPEG-1
	layer := (h >> 17) & 3
	bi := (h >> 12) & 15
	ri := (h >> 10) & 3
	if ver == 1 || layer != 1 || bi == 0 || bi == 15 || ri == 3 {
		return mp3Frame{}, false
	}
	f := mp3Frame{mpeg1: ver == 3, channels: 2}
	if (h>>6)&3 == 3 {
		f.channels = 1
	}
	pad := int((h >> 9) & 1)
	switch ver {
	case 3:
		f.rate, f.bitrate, f.samples = mp3Rates[0][ri], mp3BitrateV1[bi], 1152
		f.size = 144*f.bitrate*1000/f.rate + pad
		f.sideInfo = 32
		if f.channels == 1 {
			f.sideInfo = 17
		}
	default:
		row := 1
		if ver == 0 {
			row = 2
		}
		f.rate, f.bitrate, f.samples = mp3Rates[row][ri], mp3BitrateV2[bi], 576
		f.size = 72*f.bitrate*1000/f.rate + pad
		f.sideInfo = 17
		if f.channels == 1 {
			f.sideInfo = 9
		}
	}
	return f, true
}

// minFrameBytes is the smallest frame any bitrate gives at f's rate.
func (f mp3Frame) minFrameBytes() int {
	if f.mpeg1 {
		return 144 * 32000 / f.rate
	}
	return 72 * 8000 / f.rate
}

// mp3Start finds the first frame: after any ID3v2 tags, the first header
// that is followed by a second valid header where the first one ends.
func mp3Start(s *src) (int64, mp3Frame, error) {
	var off int64
	for tags := 0; tags < 4; tags++ { // tags may be stacked
		b, err := s.at(off, min64(10, s.size-off))
		if err != nil || len(b) < 10 || !bytes.HasPrefix(b, []byte("ID3")) {
			break
		}
		n := int64(b[6]&0x7F)<<21 | int64(b[7]&0x7F)<<14 | int64(b[8]&0x7F)<<7 | int64(b[9]&0x7F)
		off += 10 + n
		if b[5]&0x10 != 0 {
			off += 10 // footer
		}
	}
	if off >= s.size {
		return 0, mp3Frame{}, corrupt("ID3 tag past the end")
	}
	if b, err := s.at(off, min64(4, s.size-off)); err == nil && string(b) == "fLaC" {
		return 0, mp3Frame{}, fmt.Errorf("%w (FLAC behind an ID3 tag)", ErrUnsupported)
	}
	// Look for a frame within 64 KiB after the tags.
	end := min64(s.size-4, off+window-8)
	for p := off; p <= end; p++ {
		b, err := s.at(p, 4)
		if err != nil {
			return 0, mp3Frame{}, err
		}
		f, ok := parseMP3(u32be(b))
		if !ok {
			continue
		}
		next := p + int64(f.size)
		if next+4 > s.size {
			// A single frame file: take it only if it is the whole file.
			if next == s.size {
				return p, f, nil
			}
			continue
		}
		nb, err := s.at(next, 4)
		if err != nil {
			return 0, mp3Frame{}, err
		}
		if g, ok := parseMP3(u32be(nb)); ok && g.rate == f.rate && g.mpeg1 == f.mpeg1 {
			return p, f, nil
		}
	}
	return 0, mp3Frame{}, corrupt("no MP3 frames")
}

func probeMP3(s *src) (Info, error) {
	start, f, err := mp3Start(s)
	if err != nil {
		return Info{}, err
	}
	end := s.size
	if end-start >= 128 {
		if t, err := s.at(end-128, 3); err == nil && string(t) == "TAG" {
			end -= 128
		}
	}
	audioBytes := end - start
	info := Info{Format: "mp3", SampleRate: f.rate, Channels: f.channels}
	fb, err := s.at(start, min64(int64(f.size), end-start))
	if err != nil {
		return Info{}, err
	}
	frames, xbytes, delay, ok := xingVBRI(fb, f)
	if ok && frames > 0 {
		// The Xing/Info frame itself holds no audio.
		samples := frames * uint64(f.samples)
		if delay < samples {
			samples -= delay
		}
		info.Duration = durOf(samples, f.rate)
		if xbytes > 0 && int64(xbytes) > audioBytes+audioBytes/50+1024 {
			return Info{}, corrupt("MP3 cut short: %d of %d bytes", audioBytes, xbytes)
		}
		if frames*uint64(f.minFrameBytes()) > uint64(audioBytes)+uint64(f.size) {
			return Info{}, corrupt("MP3 header claims %d frames in %d bytes", frames, audioBytes)
		}
		return info, nil
	}
	// Constant bitrate: bytes over bitrate.
	info.Duration = durOf(uint64(audioBytes)*8, f.bitrate*1000)
	return info, nil
}

// xingVBRI reads a Xing/Info or VBRI header from the first frame b: the
// number of audio frames, the stream's bytes (0 when absent) and the
// encoder delay plus padding in samples (from a LAME tag).
func xingVBRI(b []byte, f mp3Frame) (frames, nbytes, delay uint64, ok bool) {
	x := 4 + f.sideInfo
	if len(b) >= x+8 && (string(b[x:x+4]) == "Xing" || string(b[x:x+4]) == "Info") {
		flags := u32be(b[x+4:])
		p := x + 8
		if flags&1 != 0 && len(b) >= p+4 {
			frames = uint64(u32be(b[p:]))
			p += 4
		}
		if flags&2 != 0 && len(b) >= p+4 {
			nbytes = uint64(u32be(b[p:]))
			p += 4
		}
		if flags&4 != 0 {
			p += 100
		}
		if flags&8 != 0 {
			p += 4
		}
		// LAME tag: 9 bytes of version, then 12 bits delay, 12 bits padding at +21.
		if len(b) >= p+24 && (string(b[p:p+4]) == "LAME" || string(b[p:p+4]) == "Lavf" || string(b[p:p+4]) == "Lavc") {
			d := u24be(b[p+21:])
			delay = uint64(d>>12) + uint64(d&0xFFF)
		}
		return frames, nbytes, delay, true
	}
	v := 4 + 32
	if len(b) >= v+18 && string(b[v:v+4]) == "VBRI" {
		delay = uint64(u16be(b[v+6:]))
		nbytes = uint64(u32be(b[v+10:]))
		frames = uint64(u32be(b[v+14:]))
		return frames, nbytes, delay, true
	}
	return 0, 0, 0, false
}

// noSeek hides Seek so that go-mp3 does not scan the whole file up front.
type noSeek struct{ r io.Reader }

func (n noSeek) Read(p []byte) (int, error) { return n.r.Read(p) }

func peaksMP3(s *src, info Info, acc *peakAcc) error {
	start, f, err := mp3Start(s)
	if err != nil {
		return err
	}
	if !f.mpeg1 && f.rate <= 12000 {
		return errMPEG25
	}
	d, err := mp3.NewDecoder(noSeek{&ctxReader{s.ctx, io.NewSectionReader(s.r, start, s.size-start)}})
	if err != nil {
		return corrupt("mp3: %v", err)
	}
	// go-mp3 always gives 16-bit stereo.
	buf := make([]byte, 4*1152*4)
	for {
		n, err := d.Read(buf)
		for i := 0; i+3 < n; i += 4 {
			l := int16(u16le(buf[i:]))
			r := int16(u16le(buf[i+2:]))
			acc.add(max(absf(float32(l)), absf(float32(r))) / 32768)
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if cerr := s.ctx.Err(); cerr != nil {
				return cerr
			}
			if acc.pos > 0 {
				return nil // decoded what was there
			}
			return corrupt("mp3: %v", err)
		}
	}
}
