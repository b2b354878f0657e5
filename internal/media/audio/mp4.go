package audio

import (
	"fmt"
	"time"
)

// mp4Track is what the box walk learns about one track.
type mp4Track struct {
	id         uint32
	handler    string
	timescale  uint32
	duration   uint64 // mdhd
	edit       uint64 // elst, in the movie's timescale; 0: none
	entry      string // first sample entry type
	rate       int
	channels   int
	samples    uint64 // stsz count
	fragEnd    uint64 // end of the last fragment, in timescale units
	defaultDur uint32 // trex
}

type mp4File struct {
	timescale   uint32 // mvhd
	duration    uint64 // mvhd
	fragDur     uint64 // mehd
	tracks      []*mp4Track
	hasMoov     bool
	boxes       int
	fragSamples int64
}

// maxBoxes bounds the boxes one walk visits.
const maxBoxes = 1 << 20

// probeMP4 walks the boxes itself: the few it needs are read in place, and
// no table is loaded (a fragmented file's trun durations are summed as
// they are read).
func probeMP4(s *src) (Info, error) {
	f := &mp4File{}
	if err := mp4Walk(s, f, 0, s.size, 0, nil); err != nil {
		return Info{}, err
	}
	if !f.hasMoov {
		return Info{}, corrupt("MP4 without moov")
	}
	var audio *mp4Track
	for _, t := range f.tracks {
		switch t.handler {
		case "vide":
			return Info{}, ErrVideo
		case "soun":
			if audio == nil {
				audio = t
			}
		}
	}
	if audio == nil {
		return Info{}, corrupt("MP4 without an audio track")
	}
	switch audio.entry {
	case "mp4a":
	case "samr", "sawb":
		return Info{}, ErrAMR
	default:
		return Info{}, fmt.Errorf("%w (MP4 codec %q)", ErrUnsupported, audio.entry)
	}
	if audio.timescale == 0 {
		return Info{}, corrupt("MP4 track timescale 0")
	}
	info := Info{Format: "m4a-aac", SampleRate: audio.rate, Channels: audio.channels}
	var d time.Duration
	switch {
	case audio.fragEnd > 0:
		d = durOf(audio.fragEnd, int(audio.timescale))
	case audio.edit > 0 && f.timescale > 0:
		d = durOf(audio.edit, int(f.timescale))
	case audio.duration > 0:
		d = durOf(audio.duration, int(audio.timescale))
	case f.fragDur > 0 && f.timescale > 0:
		d = durOf(f.fragDur, int(f.timescale))
	}
	if audio.fragEnd == 0 && audio.rate > 0 {
		// An AAC frame holds 1024 samples: the sample count bounds the duration.
		frames := durOf(audio.samples*1024, audio.rate)
		if d > frames+frames/20+time.Second {
			return Info{}, corrupt("MP4 claims %s in %d AAC frames", d, audio.samples)
		}
	}
	info.Duration = d
	return info, nil
}

var mp4Containers = map[string]bool{"moov": true, "trak": true, "mdia": true, "minf": true, "stbl": true,
	"mvex": true, "moof": true, "traf": true, "edts": true}

// mp4Walk visits the boxes in [off, end) at depth; tr is the current trak
// or, inside a traf, the fragment's track.
func mp4Walk(s *src, f *mp4File, off, end int64, depth int, tr *mp4Track) error {
	if depth > 8 {
		return corrupt("MP4 boxes nested too deep")
	}
	var fragTime uint64
	var haveTfdt bool
	var defDur uint32
	for off+8 <= end {
		if f.boxes++; f.boxes > maxBoxes {
			return corrupt("MP4 with over %d boxes", maxBoxes)
		}
		if f.boxes%1024 == 0 {
			if err := s.ctx.Err(); err != nil {
				return err
			}
		}
		h, err := s.at(off, 8)
		if err != nil {
			return err
		}
		size, typ, hl := int64(u32be(h)), string(h[4:8]), int64(8)
		switch size {
		case 0:
			size = end - off
		case 1:
			x, err := s.at(off+8, 8)
			if err != nil {
				return err
			}
			if u64be(x) > uint64(s.size) {
				return corrupt("MP4 box %q past the end", typ)
			}
			size, hl = int64(u64be(x)), 16
		}
		if size < hl || size > end-off {
			return corrupt("MP4 box %q of %d bytes past the end", typ, size)
		}
		body, bend := off+hl, off+size
		blen := bend - body
		read := func(n int64) ([]byte, error) {
			if n > blen {
				return nil, corrupt("MP4 box %q too short", typ)
			}
			return s.at(body, n)
		}
		switch {
		case mp4Containers[typ]:
			t := tr
			switch typ {
			case "moov":
				f.hasMoov = true
			case "trak":
				if len(f.tracks) >= 64 {
					return corrupt("MP4 with too many tracks")
				}
				t = &mp4Track{}
				f.tracks = append(f.tracks, t)
			case "traf":
				t = nil
			}
			if err := mp4Walk(s, f, body, bend, depth+1, t); err != nil {
				return err
			}
		case typ == "mvhd" || typ == "mdhd":
			b, err := read(4)
			if err != nil {
				return err
			}
			if b[0] == 1 {
				b, err = read(32)
			} else {
				b, err = read(20)
			}
			if err != nil {
				return err
			}
			var ts uint32
			var dur uint64
			if b[0] == 1 {
				ts, dur = u32be(b[20:]), u64be(b[24:])
			} else {
				ts, dur = u32be(b[12:]), uint64(u32be(b[16:]))
			}
			if dur == 0xFFFFFFFF || dur == 1<<64-1 {
				dur = 0
			}
			if typ == "mvhd" {
				f.timescale, f.duration = ts, dur
			} else if tr != nil {
				tr.timescale, tr.duration = ts, dur
			}
		case typ == "tkhd" && tr != nil:
			b, err := read(24)
			if err != nil {
				return err
			}
			if b[0] == 1 {
				tr.id = u32be(b[20:])
			} else {
				tr.id = u32be(b[12:])
			}
		case typ == "hdlr" && tr != nil:
			b, err := read(12)
			if err != nil {
				return err
			}
			tr.handler = string(b[8:12])
		case typ == "elst" && tr != nil:
			b, err := read(8)
			if err != nil {
				return err
			}
			v, n := b[0], int64(u32be(b[4:]))
			es := int64(12)
			if v == 1 {
				es = 20
			}
			if n > 64 || 8+n*es > blen {
				return corrupt("MP4 edit list of %d entries", n)
			}
			tr.edit = 0
			for i := int64(0); i < n; i++ {
				e, err := s.at(body+8+i*es, es)
				if err != nil {
					return err
				}
				if v == 1 {
					if int64(u64be(e[8:])) >= 0 {
						tr.edit += u64be(e)
					}
				} else if int32(u32be(e[4:])) >= 0 {
					tr.edit += uint64(u32be(e))
				}
			}
		case typ == "stsd" && tr != nil:
			b, err := read(8 + 8 + 28)
			if err != nil {
				if blen >= 16 {
					if e, err := s.at(body+8, 8); err == nil {
						tr.entry = string(e[4:8])
					}
				}
				break
			}
			tr.entry = string(b[12:16])
			// AudioSampleEntry: 6 reserved, 2 index, 8 reserved, channels, size, 4 pre/res, rate 16.16.
			e := b[16:]
			tr.channels = int(u16be(e[16:]))
			tr.rate = int(u32be(e[24:]) >> 16)
			// The AAC config in esds is the truth about channels and rate.
			entryEnd := min64(bend, body+8+int64(u32be(b[8:])))
			if tr.entry == "mp4a" && entryEnd-(body+44) >= 8 && entryEnd-(body+44) < window {
				if x, err := s.at(body+44, entryEnd-(body+44)); err == nil {
					if rate, ch, ok := esdsConfig(x); ok {
						tr.rate, tr.channels = rate, ch
					}
				}
			}
		case typ == "stsz" && tr != nil:
			b, err := read(12)
			if err != nil {
				return err
			}
			tr.samples = uint64(u32be(b[8:]))
			if u32be(b[4:]) == 0 && int64(tr.samples)*4 > blen-12 {
				return corrupt("MP4 stsz claims %d samples in %d bytes", tr.samples, blen)
			}
		case typ == "mehd":
			b, err := read(12)
			if err != nil {
				return err
			}
			if b[0] == 1 {
				f.fragDur = u64be(b[4:])
			} else {
				f.fragDur = uint64(u32be(b[4:]))
			}
		case typ == "trex":
			b, err := read(24)
			if err != nil {
				return err
			}
			for _, t := range f.tracks {
				if t.id == u32be(b[4:]) {
					t.defaultDur = u32be(b[12:])
				}
			}
		case typ == "tfhd":
			b, err := read(8)
			if err != nil {
				return err
			}
			flags, id := u24be(b[1:]), u32be(b[4:])
			tr = nil
			for _, t := range f.tracks {
				if t.id == id {
					tr = t
				}
			}
			if tr == nil {
				break
			}
			defDur = tr.defaultDur
			p := int64(8)
			if flags&1 != 0 {
				p += 8
			}
			if flags&2 != 0 {
				p += 4
			}
			if flags&8 != 0 {
				x, err := read(p + 4)
				if err != nil {
					return err
				}
				defDur = u32be(x[p:])
			}
			if !haveTfdt {
				fragTime = tr.fragEnd
			}
		case typ == "tfdt" && tr != nil:
			b, err := read(8)
			if err != nil {
				return err
			}
			if b[0] == 1 {
				if b, err = read(12); err != nil {
					return err
				}
				fragTime = u64be(b[4:])
			} else {
				fragTime = uint64(u32be(b[4:]))
			}
			haveTfdt = true
		case typ == "trun" && tr != nil:
			b, err := read(8)
			if err != nil {
				return err
			}
			flags, n := u24be(b[1:]), int64(u32be(b[4:]))
			p := int64(8)
			if flags&1 != 0 {
				p += 4
			}
			if flags&4 != 0 {
				p += 4
			}
			var es int64
			for _, bit := range []uint32{0x100, 0x200, 0x400, 0x800} {
				if flags&bit != 0 {
					es += 4
				}
			}
			// Each sample takes at least a byte of the file.
			if f.fragSamples += n; p+n*es > blen || f.fragSamples > s.size {
				return corrupt("MP4 trun claims %d samples in %d bytes", n, blen)
			}
			if flags&0x100 == 0 {
				fragTime += uint64(n) * uint64(defDur)
			} else {
				for i := int64(0); i < n; i++ {
					x, err := s.at(body+p+i*es, 4)
					if err != nil {
						return err
					}
					fragTime += uint64(u32be(x))
				}
			}
			tr.fragEnd = max(tr.fragEnd, fragTime)
		}
		off = bend
	}
	return nil
}

var aacRates = [13]int{96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350}

// esdsConfig finds the esds box among b's boxes and reads the rate and
// channels of its AudioSpecificConfig (ISO 14496-3, 1.6.2.1).
func esdsConfig(b []byte) (rate, channels int, ok bool) {
	for len(b) >= 8 {
		n := int(u32be(b))
		if n < 8 || n > len(b) {
			return 0, 0, false
		}
		if string(b[4:8]) == "esds" {
			return esdsDescriptors(b[12:n])
		}
		b = b[n:]
	}
	return 0, 0, false
}

func esdsDescriptors(b []byte) (rate, channels int, ok bool) {
	for depth := 0; depth < 4 && len(b) >= 2; depth++ {
		tag := b[0]
		p, n := 1, 0
		for i := 0; i < 4 && p < len(b); i++ {
			n = n<<7 | int(b[p]&0x7F)
			p++
			if b[p-1]&0x80 == 0 {
				break
			}
		}
		if p+n > len(b) {
			return 0, 0, false
		}
		body := b[p : p+n]
		switch tag {
		case 3: // ES_Descriptor: ES_ID, flags, optional fields
			if len(body) < 3 {
				return 0, 0, false
			}
			q := 3
			if body[2]&0x80 != 0 {
				q += 2
			}
			if body[2]&0x40 != 0 {
				if q >= len(body) {
					return 0, 0, false
				}
				q += 1 + int(body[q])
			}
			if body[2]&0x20 != 0 {
				q += 2
			}
			if q > len(body) {
				return 0, 0, false
			}
			b = body[q:]
		case 4: // DecoderConfigDescriptor: 13 bytes, then DecoderSpecificInfo
			if len(body) < 13 {
				return 0, 0, false
			}
			b = body[13:]
		case 5:
			if len(body) < 2 {
				return 0, 0, false
			}
			x := u16be(body)
			fi, ch := int(x>>7&15), int(x>>3&15)
			if x>>11 == 31 || fi == 15 {
				return 0, 0, false // escaped object type or explicit rate: keep the sample entry's
			}
			if fi >= len(aacRates) || ch == 0 {
				return 0, 0, false
			}
			if ch == 7 {
				ch = 8
			}
			return aacRates[fi], ch, true
		default:
			return 0, 0, false
		}
	}
	return 0, 0, false
}
