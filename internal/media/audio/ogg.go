package audio

import (
	"bytes"
	"fmt"

	"github.com/jfreymuth/vorbis"
)

// oggPage is a parsed Ogg page header.
type oggPage struct {
	flags   byte
	granule int64
	serial  uint32
	lacing  []byte
	body    int64 // offset of the body
	end     int64 // offset after the page
}

// readOggPage parses and checks (CRC) the page at off.
func readOggPage(s *src, off int64) (oggPage, error) {
	h, err := s.at(off, min64(27+255, s.size-off))
	if err != nil {
		return oggPage{}, err
	}
	if len(h) < 27 || !bytes.HasPrefix(h, []byte("OggS\x00")) || len(h) < 27+int(h[26]) {
		return oggPage{}, corrupt("no Ogg page at %d", off)
	}
	n := int64(27 + int(h[26]))
	for _, l := range h[27:n] {
		n += int64(l)
	}
	whole, err := s.at(off, n) // at most 27+255+255*255 < 64 KiB
	if err != nil {
		return oggPage{}, err
	}
	p, ok := parseOggPage(whole)
	if !ok {
		return oggPage{}, corrupt("Ogg page CRC at %d", off)
	}
	p.body += off
	p.end += off
	return p, nil
}

// parseOggPage parses the whole page at the start of b, CRC checked;
// offsets are relative to b.
func parseOggPage(b []byte) (oggPage, bool) {
	if len(b) < 27 || !bytes.HasPrefix(b, []byte("OggS\x00")) || len(b) < 27+int(b[26]) {
		return oggPage{}, false
	}
	nseg := int64(b[26])
	p := oggPage{flags: b[5], granule: int64(u64le(b[6:])), serial: u32le(b[14:]), body: 27 + nseg}
	p.end = p.body
	for _, l := range b[27:p.body] {
		p.end += int64(l)
	}
	if int64(len(b)) < p.end || oggCRC(b[:p.end]) != u32le(b[22:]) {
		return oggPage{}, false
	}
	p.lacing = append([]byte(nil), b[27:p.body]...)
	return p, true
}

var oggTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for j := 0; j < 8; j++ {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04c11db7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

// oggCRC is the page's CRC with its CRC field taken as zero.
func oggCRC(b []byte) uint32 {
	var c uint32
	for i, x := range b {
		if i >= 22 && i < 26 {
			x = 0
		}
		c = c<<8 ^ oggTable[byte(c>>24)^x]
	}
	return c
}

type oggStream struct {
	opus    bool
	serial  uint32
	preSkip int64
}

// probeOgg reads the first page's identification header and the last page's
// granule position.
func probeOgg(s *src) (Info, oggStream, error) {
	var st oggStream
	first, err := readOggPage(s, 0)
	if err != nil {
		return Info{}, st, err
	}
	if first.flags&2 == 0 || len(first.lacing) == 0 {
		return Info{}, st, corrupt("Ogg stream does not begin")
	}
	id, err := s.at(first.body, min64(first.end-first.body, 64))
	if err != nil {
		return Info{}, st, err
	}
	st.serial = first.serial
	info := Info{}
	switch {
	case len(id) >= 19 && bytes.HasPrefix(id, []byte("OpusHead")):
		st.opus = true
		info.Format = "ogg-opus"
		info.Channels = int(id[9])
		st.preSkip = int64(u16le(id[10:]))
		info.SampleRate = 48000 // Opus always decodes at 48 kHz; granules count at 48 kHz
		if id[8]>>4 != 0 {
			return Info{}, st, corrupt("Opus version %d", id[8])
		}
	case len(id) >= 30 && bytes.HasPrefix(id, []byte("\x01vorbis")):
		info.Format = "ogg-vorbis"
		info.Channels = int(id[11])
		info.SampleRate = int(u32le(id[12:]))
		if u32le(id[7:]) != 0 {
			return Info{}, st, corrupt("Vorbis version %d", u32le(id[7:]))
		}
	default:
		return Info{}, st, fmt.Errorf("%w (ogg with another codec)", ErrUnsupported)
	}
	last, err := lastGranule(s, st.serial)
	if err != nil {
		return Info{}, st, err
	}
	samples := last - st.preSkip
	if samples <= 0 {
		return Info{}, st, corrupt("Ogg without audio")
	}
	info.Duration = durOf(uint64(samples), info.SampleRate)
	if info.Duration > MaxDuration {
		return Info{}, st, fmt.Errorf("%w (%s)", ErrTooLong, info.Duration)
	}
	// No encoder writes fewer than 8 bytes a second (Opus's smallest pages
	// carry about 17).
	return info, st, plausible(info.Duration, s.size, 8)
}

// lastGranule is the granule of the last valid page of serial, looked for
// in the last MiB of the file, trying at most 64 places that look like pages.
func lastGranule(s *src, serial uint32) (int64, error) {
	buf := make([]byte, window)
	tries := 0
	for end := s.size; end > 0 && s.size-end < 1<<20; end -= window / 2 {
		from := max(0, end-window)
		b, err := s.at(from, end-from)
		if err != nil {
			return 0, err
		}
		b = buf[:copy(buf, b)]
		for i := bytes.LastIndex(b, []byte("OggS")); i >= 0; i = bytes.LastIndex(b[:i], []byte("OggS")) {
			if tries++; tries > 64 {
				return 0, corrupt("no Ogg page with a position near the end")
			}
			p, ok := parseOggPage(b[i:])
			if ok && p.serial == serial && p.granule >= 0 {
				return p.granule, nil
			}
		}
		if from == 0 {
			break
		}
	}
	return 0, corrupt("no Ogg page with a position near the end")
}

// oggPackets calls fn with each packet of serial in order (at most 255
// pages per packet, maxPacket bytes), stopping at the end, a damaged page,
// or an error from fn.
func oggPackets(s *src, serial uint32, maxPacket int, fn func([]byte) error) error {
	var pkt []byte
	off := int64(0)
	for off < s.size {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		p, err := readOggPage(s, off)
		if err != nil {
			return err
		}
		off = p.end
		if p.serial != serial {
			continue
		}
		if p.flags&1 == 0 {
			pkt = pkt[:0] // not a continuation: drop any partial packet
		}
		pos := p.body
		for _, l := range p.lacing {
			if len(pkt)+int(l) > maxPacket {
				return corrupt("Ogg packet over %d bytes", maxPacket)
			}
			b, err := s.at(pos, int64(l))
			if err != nil {
				return err
			}
			pkt = append(pkt, b...)
			pos += int64(l)
			if l < 255 {
				if err := fn(pkt); err != nil {
					return err
				}
				pkt = pkt[:0]
			}
		}
		if p.flags&4 != 0 {
			return nil
		}
	}
	return nil
}

func peaksOgg(s *src, info Info, acc *peakAcc) error {
	_, st, err := probeOgg(s)
	if err != nil {
		return err
	}
	if st.opus {
		dec, err := newOpusPeaks(info.Channels, st.preSkip, acc)
		if err != nil {
			return err
		}
		n := 0
		err = oggPackets(s, st.serial, 1<<16, func(p []byte) error {
			n++
			if n <= 2 { // OpusHead, OpusTags
				return nil
			}
			return dec.decode(p)
		})
		return doneDecoding(s, acc, err)
	}
	var d vorbis.Decoder
	n := 0
	err = oggPackets(s, st.serial, 1<<20, func(p []byte) error {
		n++
		if n <= 3 {
			if n == 3 {
				if err := checkVorbisSetup(p); err != nil {
					return err
				}
			}
			if err := d.ReadHeader(p); err != nil {
				return corrupt("vorbis header: %v", err)
			}
			return nil
		}
		out, err := d.Decode(p)
		if err != nil {
			return corrupt("vorbis: %v", err)
		}
		ch := d.Channels()
		for i := 0; i+ch <= len(out); i += ch {
			var peak float32
			for c := 0; c < ch; c++ {
				peak = max(peak, absf(out[i+c]))
			}
			acc.add(min(peak, 1))
		}
		return nil
	})
	return doneDecoding(s, acc, err)
}

// doneDecoding: a cancelled ctx is an error; a damaged stream after some
// audio gives the peaks of what was decoded.
func doneDecoding(s *src, acc *peakAcc, err error) error {
	if cerr := s.ctx.Err(); cerr != nil {
		return cerr
	}
	if err != nil && acc.pos == 0 {
		return err
	}
	return nil
}
