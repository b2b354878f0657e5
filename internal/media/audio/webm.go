package audio

import (
	"bytes"
	"fmt"
	"math"
	"time"
)

// EBML element IDs that the walk looks at.
const (
	idEBML        = 0x1A45DFA3
	idDocType     = 0x4282
	idSegment     = 0x18538067
	idInfo        = 0x1549A966
	idTimecodeSc  = 0x2AD7B1
	idDuration    = 0x4489
	idTracks      = 0x1654AE6B
	idTrackEntry  = 0xAE
	idTrackNumber = 0xD7
	idTrackType   = 0x83
	idCodecID     = 0x86
	idCodecDelay  = 0x56AA
	idAudio       = 0xE1
	idSampFreq    = 0xB5
	idChannels    = 0x9F
	idCluster     = 0x1F43B675
	idTimecode    = 0xE7
	idSimpleBlock = 0xA3
	idBlockGroup  = 0xA0
	idBlock       = 0xA1
)

// maxElements bounds the elements one walk visits (a one-hour Opus
// recording has about 200,000 blocks).
const maxElements = 4 << 20

type webmTrack struct {
	number   uint64
	typ      uint64
	codec    string
	rate     float64
	channels uint64
}

type webmFile struct {
	docType    string
	scale      uint64 // ns per timecode tick
	duration   float64
	codecDelay uint64
	tracks     []webmTrack
}

type webmBlock struct {
	track  uint64
	time   int64 // in ticks
	flags  byte
	off, n int64 // payload after the block header
}

// vint reads an EBML variable-length integer at b: its value (marker kept
// for IDs), its length, and whether all its value bits are ones.
func vint(b []byte, keepMarker bool) (v uint64, n int, allOnes bool) {
	if len(b) == 0 || b[0] == 0 {
		return 0, 0, false
	}
	n = 1
	for m := byte(0x80); b[0]&m == 0; m >>= 1 {
		n++
	}
	if n > 8 || len(b) < n {
		return 0, 0, false
	}
	first := uint64(b[0])
	if !keepMarker {
		first &^= 0x80 >> (n - 1)
	}
	v = first
	ones := first == uint64(0xFF>>n)
	for i := 1; i < n; i++ {
		v = v<<8 | uint64(b[i])
		ones = ones && b[i] == 0xFF
	}
	return v, n, ones
}

// walkWebM visits the file's EBML elements linearly: the masters it needs
// (Segment, Info, Tracks, TrackEntry, Audio, Cluster, BlockGroup) are
// entered, whatever their size; leaves are read when small and skipped
// otherwise; fn gets each block.
func walkWebM(s *src, fn func(*webmFile, webmBlock) error) (webmFile, error) {
	f := webmFile{scale: 1000000}
	var cluster int64
	off := int64(0)
	for n := 0; off < s.size; n++ {
		if n > maxElements {
			return f, corrupt("WebM with over %d elements", maxElements)
		}
		h, err := s.at(off, min64(12, s.size-off))
		if err != nil {
			return f, err
		}
		id, il, _ := vint(h, true)
		if il == 0 || il > 4 {
			return f, corrupt("bad EBML ID at %d", off)
		}
		size, sl, unknown := vint(h[il:], false)
		if sl == 0 {
			if off+int64(len(h)) >= s.size {
				break // cut inside a header at the end
			}
			return f, corrupt("bad EBML size at %d", off)
		}
		body := off + int64(il+sl)
		switch id {
		case idEBML, idSegment, idInfo, idTracks, idTrackEntry, idAudio, idCluster, idBlockGroup:
			if id == idTrackEntry {
				if len(f.tracks) >= 64 {
					return f, corrupt("WebM with too many tracks")
				}
				f.tracks = append(f.tracks, webmTrack{})
			}
			off = body
			continue
		}
		if unknown {
			return f, corrupt("EBML element %x of unknown size", id)
		}
		end := body + int64(size)
		if size > uint64(s.size) || end > s.size {
			if id == idSimpleBlock || id == idBlock {
				end = s.size // a last block cut short: take what is there
			} else {
				return f, corrupt("EBML element %x past the end", id)
			}
		}
		var val []byte
		if size <= 64 {
			if val, err = s.at(body, int64(size)); err != nil {
				return f, err
			}
		}
		var tr *webmTrack
		if len(f.tracks) > 0 {
			tr = &f.tracks[len(f.tracks)-1]
		}
		switch {
		case val == nil && id != idSimpleBlock && id != idBlock:
			// large leaf: skip
		case id == idDocType:
			f.docType = string(bytes.TrimRight(val, "\x00"))
		case id == idTimecodeSc:
			f.scale = uintOf(val)
		case id == idDuration:
			f.duration = floatOf(val)
		case id == idTimecode:
			cluster = int64(uintOf(val) & (1<<62 - 1))
		case id == idCodecDelay:
			f.codecDelay = uintOf(val)
		case tr != nil && id == idTrackNumber:
			tr.number = uintOf(val)
		case tr != nil && id == idTrackType:
			tr.typ = uintOf(val)
		case tr != nil && id == idCodecID:
			tr.codec = string(bytes.TrimRight(val, "\x00"))
		case tr != nil && id == idSampFreq:
			tr.rate = floatOf(val)
		case tr != nil && id == idChannels:
			tr.channels = uintOf(val)
		case id == idSimpleBlock || id == idBlock:
			hb, err := s.at(body, min64(12, end-body))
			if err != nil {
				return f, err
			}
			tn, tl, _ := vint(hb, false)
			if tl == 0 || len(hb) < tl+3 {
				return f, corrupt("bad block at %d", off)
			}
			b := webmBlock{track: tn, time: cluster + int64(int16(u16be(hb[tl:]))), flags: hb[tl+2],
				off: body + int64(tl+3)}
			b.n = end - b.off
			if err := fn(&f, b); err != nil {
				return f, err
			}
		}
		off = end
	}
	if f.docType != "webm" {
		return f, fmt.Errorf("%w (matroska doctype %q)", ErrUnsupported, f.docType)
	}
	if f.scale == 0 || f.scale > 1e9 {
		return f, corrupt("WebM timecode scale %d", f.scale)
	}
	if f.codecDelay > 1e9 { // Opus's is 6.5 ms
		return f, corrupt("WebM codec delay %d ns", f.codecDelay)
	}
	return f, nil
}

func uintOf(b []byte) uint64 {
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return v
}

func floatOf(b []byte) float64 {
	switch len(b) {
	case 4:
		return float64(math.Float32frombits(u32be(b)))
	case 8:
		return math.Float64frombits(u64be(b))
	}
	return 0
}

// opusTrack is the file's audio track: Opus, and no video.
func (f webmFile) opusTrack() (webmTrack, error) {
	var audio *webmTrack
	for i := range f.tracks {
		switch t := &f.tracks[i]; t.typ {
		case 1:
			return webmTrack{}, ErrVideo
		case 2:
			if audio == nil {
				audio = t
			}
		}
	}
	if audio == nil {
		return webmTrack{}, corrupt("WebM without an audio track")
	}
	if audio.codec != "A_OPUS" {
		return webmTrack{}, fmt.Errorf("%w (WebM codec %q)", ErrUnsupported, audio.codec)
	}
	if audio.channels == 0 {
		audio.channels = 1
	}
	return *audio, nil
}

// opusSamples is the number of 48 kHz samples in an Opus packet whose first
// bytes are b (RFC 6716, 3.1), 0 if b is not a packet.
func opusSamples(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	cfg := b[0] >> 3
	var per int // samples per frame at 48 kHz
	switch {
	case cfg < 12: // SILK: 10, 20, 40, 60 ms
		per = []int{480, 960, 1920, 2880}[cfg&3]
	case cfg < 16: // hybrid: 10, 20 ms
		per = []int{480, 960}[cfg&1]
	default: // CELT: 2.5, 5, 10, 20 ms
		per = []int{120, 240, 480, 960}[cfg&3]
	}
	switch b[0] & 3 {
	case 0:
		return per
	case 1, 2:
		return 2 * per
	default:
		if len(b) < 2 {
			return 0
		}
		return int(b[1]&0x3F) * per
	}
}

// probeWebM walks the whole file's element headers for the last block's
// end: Chromium's recordings carry no Duration.
func probeWebM(s *src) (Info, webmTrack, error) {
	var track webmTrack
	var end int64 // ns
	var terr error
	f, err := walkWebM(s, func(f *webmFile, b webmBlock) error {
		if track.number == 0 {
			if track, terr = f.opusTrack(); terr != nil {
				return terr
			}
		}
		if b.track != track.number || b.n < 1 {
			return nil
		}
		pk, err := s.at(b.off, min64(b.n, 2))
		if err != nil {
			return err
		}
		frames := int64(1)
		if b.flags&0x06 != 0 { // laced: count, then the first packet is elsewhere
			frames = int64(pk[0]) + 1
			pk = nil
			if first, _, err := webmLaces(s, b); err == nil && len(first) > 0 {
				if pk, err = s.at(first[0].off, min64(first[0].n, 2)); err != nil {
					return err
				}
			}
		}
		ns := b.time*int64(f.scale) + frames*int64(opusSamples(pk))*1e9/48000
		end = max(end, ns)
		return nil
	})
	if err != nil {
		return Info{}, track, err
	}
	if track.number == 0 {
		if track, err = f.opusTrack(); err != nil {
			return Info{}, track, err
		}
		return Info{}, track, corrupt("WebM without audio blocks")
	}
	d := time.Duration(end) - time.Duration(f.codecDelay)
	if f.duration > 0 {
		// A Duration that says more than the blocks hold: cut short, or a lie.
		claimed := time.Duration(f.duration * float64(f.scale))
		if claimed > d+d/50+500*time.Millisecond {
			return Info{}, track, corrupt("WebM Duration %s, blocks end at %s", claimed, d)
		}
	}
	info := Info{Format: "webm-opus", SampleRate: 48000, Channels: int(min(track.channels, 255)), Duration: d}
	return info, track, nil
}

type lace struct{ off, n int64 }

// webmLaces splits a block's payload into its packets (RFC 9559, 10.3).
func webmLaces(s *src, b webmBlock) ([]lace, int64, error) {
	if b.flags&0x06 == 0 {
		return []lace{{b.off, b.n}}, 0, nil
	}
	h, err := s.at(b.off, min64(b.n, 8+255*8))
	if err != nil {
		return nil, 0, err
	}
	if len(h) < 1 {
		return nil, 0, corrupt("empty laced block")
	}
	count := int(h[0]) + 1
	p := 1
	sizes := make([]int64, 0, count)
	switch b.flags & 0x06 {
	case 0x02: // Xiph
		for i := 0; i < count-1; i++ {
			var n int64
			for {
				if p >= len(h) {
					return nil, 0, corrupt("bad lacing")
				}
				n += int64(h[p])
				p++
				if h[p-1] != 255 {
					break
				}
			}
			sizes = append(sizes, n)
		}
	case 0x06: // EBML
		v, l, _ := vint(h[p:], false)
		if l == 0 {
			return nil, 0, corrupt("bad lacing")
		}
		p += l
		n := int64(v)
		sizes = append(sizes, n)
		for i := 1; i < count-1; i++ {
			v, l, _ := vint(h[p:], false)
			if l == 0 {
				return nil, 0, corrupt("bad lacing")
			}
			p += l
			n += int64(v) - (int64(1)<<(7*l-1) - 1)
			sizes = append(sizes, n)
		}
	case 0x04: // fixed
		each := (b.n - 1) / int64(count)
		for i := 0; i < count-1; i++ {
			sizes = append(sizes, each)
		}
	}
	var used int64
	for _, n := range sizes {
		if n < 0 || n > b.n {
			return nil, 0, corrupt("bad lacing")
		}
		used += n
	}
	rest := b.n - int64(p) - used
	if rest < 0 {
		return nil, 0, corrupt("bad lacing")
	}
	sizes = append(sizes, rest)
	out := make([]lace, 0, count)
	off := b.off + int64(p)
	for _, n := range sizes {
		out = append(out, lace{off, n})
		off += n
	}
	return out, int64(count), nil
}

func peaksWebM(s *src, info Info, acc *peakAcc) error {
	_, track, err := probeWebM(s)
	if err != nil {
		return err
	}
	var dec *opusPeaks
	_, err = walkWebM(s, func(f *webmFile, b webmBlock) error {
		if b.track != track.number {
			return nil
		}
		if dec == nil {
			skip := int64(f.codecDelay) * 48000 / 1e9
			if dec, err = newOpusPeaks(int(track.channels), skip, acc); err != nil {
				return err
			}
		}
		laces, _, err := webmLaces(s, b)
		if err != nil {
			return err
		}
		for _, l := range laces {
			if l.n > 1<<15 {
				return corrupt("Opus packet of %d bytes", l.n)
			}
			p, err := s.at(l.off, l.n)
			if err != nil {
				return err
			}
			if err := dec.decode(p); err != nil {
				return err
			}
		}
		return nil
	})
	return doneDecoding(s, acc, err)
}
