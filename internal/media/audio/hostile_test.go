package audio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestTruncated cuts every fixture at several points: Probe and Peaks must
// end with bounded work (Probe's allocations as on hostile files, Peaks'
// no more than on the whole file), without a panic, with an error or no
// more than the truth;
// formats that state their length must call a half file corrupt.
func TestTruncated(t *testing.T) {
	statesLength := map[string]bool{"tone.wav": true, "tone-float.wav": true, "tone.flac": true, "tone-stereo.flac": true,
		"tone.m4a": true, "tone-cbr.mp3": true, "tone-vbr.mp3": true, "tone-id3.mp3": true, "tone.webm": true}
	for _, fx := range fixtures {
		b := readFixture(t, fx.file)
		// What Peaks allocates on the whole file (decoding it): a part
		// may not cost more.
		var whole uint64
		if !fx.ffmpeg {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := Peaks(context.Background(), bytes.NewReader(b), int64(len(b)), 20); err != nil {
				t.Fatalf("%s: Peaks: %v", fx.file, err)
			}
			runtime.ReadMemStats(&after)
			whole = after.TotalAlloc - before.TotalAlloc
		}
		for _, cut := range []int{1, 4, 27, 100, len(b) / 10, len(b) / 3, len(b) / 2, len(b) * 9 / 10, len(b) - 1} {
			part := b[:cut]
			// Bounded by what Probe and Peaks allocate, as in TestHostile:
			// load does not change it, as it changes a wall-clock time.
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			info, err := Probe(context.Background(), bytes.NewReader(part), int64(len(part)))
			runtime.ReadMemStats(&after)
			if a := after.TotalAlloc - before.TotalAlloc; a > 256<<10 {
				t.Errorf("%s cut at %d: Probe allocated %d bytes; want < 256 KiB", fx.file, cut, a)
			}
			if err == nil && info.Duration > fx.dur+50*time.Millisecond {
				t.Errorf("%s cut at %d: Duration %s; want at most %s", fx.file, cut, info.Duration, fx.dur)
			}
			if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s cut at %d: error %v; want ErrCorrupt or ErrUnsupported", fx.file, cut, err)
			}
			if cut == len(b)/2 && statesLength[fx.file] && !errors.Is(err, ErrCorrupt) {
				t.Errorf("%s cut in half: Probe = %+v, %v; want ErrCorrupt", fx.file, info, err)
			}
			if !fx.ffmpeg {
				runtime.ReadMemStats(&before)
				p, err := Peaks(context.Background(), bytes.NewReader(part), int64(len(part)), 20)
				runtime.ReadMemStats(&after)
				if err == nil && len(p) != 20 {
					t.Errorf("%s cut at %d: %d peaks", fx.file, cut, len(p))
				}
				if a := after.TotalAlloc - before.TotalAlloc; a > 2*whole+64<<10 {
					t.Errorf("%s cut at %d: Peaks allocated %d bytes; the whole file %d", fx.file, cut, a, whole)
				}
			}
		}
	}
}

// patch returns a copy of b with p written at off.
func patch(b []byte, off int, p []byte) []byte {
	c := append([]byte(nil), b...)
	copy(c[off:], p)
	return c
}

func be32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }
func le32(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }

// lastOggPage rewrites the granule of the last page of b and fixes its CRC.
func lastOggGranule(b []byte, g uint64) []byte {
	c := append([]byte(nil), b...)
	i := bytes.LastIndex(c, []byte("OggS"))
	p, _ := parseOggPage(c[i:])
	binary.LittleEndian.PutUint64(c[i+6:], g)
	binary.LittleEndian.PutUint32(c[i+22:], oggCRC(c[i:i+int(p.end)]))
	return c
}

// hostile are small files that lie in their headers.
func hostile(t testing.TB) map[string][]byte {
	const tenHours = 10 * 3600
	wav := readFixture(t, "tone.wav")
	flac := readFixture(t, "tone.flac")
	mp3 := readFixture(t, "tone-vbr.mp3")
	opus := readFixture(t, "tone.opus")
	m4a := readFixture(t, "tone.m4a")
	webm := readFixture(t, "tone.webm")
	h := map[string][]byte{}

	// WAV: a data chunk of ten hours in 1 KB; a huge LIST chunk.
	di := bytes.Index(wav, []byte("data"))
	h["wav 10h data"] = patch(wav[:1024], di+4, le32(tenHours*8000*2))
	h["wav huge chunk"] = patch(wav[:1024], 36, []byte("LIST\xf0\xff\xff\xff"))
	h["wav 65535 channels"] = patch(wav[:1024], 22, []byte{0xff, 0xff})

	// FLAC: STREAMINFO says ten hours (36-bit total samples at byte 8+13).
	si := 8 + 10
	x := binary.BigEndian.Uint64(flac[si:])
	x = x&^(1<<36-1) | tenHours*16000
	h["flac 10h streaminfo"] = patch(flac, si, binary.BigEndian.AppendUint64(nil, x))
	h["flac huge metadata block"] = patch(flac[:2048], 4, []byte{0x00, 0xff, 0xff, 0xff})
	h["flac max block size 65535"] = patch(flac, 8+2, []byte{0xff, 0xff})

	// MP3: Xing says 10 hours of frames.
	xi := bytes.Index(mp3, []byte("Xing"))
	if xi < 0 {
		xi = bytes.Index(mp3, []byte("Info"))
	}
	h["mp3 10h xing"] = patch(mp3, xi+8, be32(tenHours*44100/1152))
	h["mp3 huge id3"] = append([]byte("ID3\x03\x00\x00\x7f\x7f\x7f\x7f"), mp3[:1000]...)

	// Ogg Opus: the last page's granule is ten hours.
	h["opus 10h granule"] = lastOggGranule(opus, tenHours*48000)

	// Vorbis: the first codebook claims 2^24-1 entries in ordered mode
	// (a few bits; the decoder would allocate tables for all of them).
	ogg := append([]byte(nil), readFixture(t, "tone.ogg")...)
	if i := bytes.Index(ogg, []byte("\x05vorbis")); i > 0 {
		copy(ogg[i+13:], []byte{0xff, 0xff, 0xff})
		ogg[i+16] |= 1
		p := bytes.LastIndex(ogg[:i], []byte("OggS"))
		pg, _ := parseOggPageNoCRC(ogg[p:])
		binary.LittleEndian.PutUint32(ogg[p+22:], oggCRC(ogg[p:p+int(pg)]))
		h["vorbis codebook 2^24 entries"] = ogg
	}

	// M4A: mdhd and elst say ten hours.
	c := append([]byte(nil), m4a...)
	if i := bytes.Index(c, []byte("mdhd")); i > 0 && c[i+4] == 0 {
		copy(c[i+4+16:], be32(tenHours*22050))
	}
	if i := bytes.Index(c, []byte("elst")); i > 0 {
		copy(c[i+12:], be32(tenHours*1000))
	}
	h["m4a 10h mdhd"] = c
	h["m4a huge box"] = patch(m4a[:1024], 0, be32(0xfffffff0))
	h["m4a huge largesize"] = append(append([]byte{0, 0, 0, 1}, []byte("ftyp\x7f\xff\xff\xff\xff\xff\xff\xff")...), m4a[8:1024]...)
	if i := bytes.Index(m4a, []byte("stsz")); i > 0 {
		h["m4a stsz 2^32 samples"] = patch(m4a, i+12, be32(0xffffffff))
	}

	// WebM: a Duration of ten hours (ffmpeg writes an 8-byte float).
	if i := bytes.Index(webm, []byte{0x44, 0x89, 0x88}); i > 0 {
		var f [8]byte
		binary.BigEndian.PutUint64(f[:], math.Float64bits(tenHours*1000))
		h["webm 10h duration"] = patch(webm, i+3, f[:])
	}
	h["webm huge element"] = append([]byte("\x1a\x45\xdf\xa3\x9fB\x82\x84webm\x18\x53\x80\x67\x01\xff\xff\xff\xff\xff\xff\xfe\x16\x54\xae\x6b\x01\x7f\xff\xff\xff\xff\xff\xff"), webm[100:600]...)
	return h
}

// TestID3BeforeFLAC: a FLAC file behind an ID3 tag is refused as
// unsupported, not called damaged.
func TestID3BeforeFLAC(t *testing.T) {
	b := append([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), readFixture(t, "tone.flac")...)
	if _, err := Probe(context.Background(), bytes.NewReader(b), int64(len(b))); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Probe error = %v; want ErrUnsupported", err)
	}
}

func TestHostile(t *testing.T) {
	for name, b := range hostile(t) {
		t.Run(name, func(t *testing.T) {
			// Bounded by what Probe and Peaks allocate, which load does
			// not change, as it changes a wall-clock time.
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			info, err := Probe(context.Background(), bytes.NewReader(b), int64(len(b)))
			runtime.ReadMemStats(&after)
			t.Logf("Probe: %v", err)
			decodeOnly := strings.HasPrefix(name, "vorbis") // the container is sound
			if err == nil && !decodeOnly {
				t.Errorf("Probe = %+v; want an error", info)
			} else if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLong) && !errors.Is(err, ErrUnsupported) {
				t.Errorf("Probe error = %v; want ErrCorrupt", err)
			}
			if a := after.TotalAlloc - before.TotalAlloc; a > 256<<10 {
				t.Errorf("Probe allocated %d bytes; want < 256 KiB", a)
			}
			runtime.ReadMemStats(&before)
			if _, err := Peaks(context.Background(), bytes.NewReader(b), int64(len(b)), 100); err == nil {
				t.Errorf("Peaks: no error")
			}
			runtime.ReadMemStats(&after)
			if a := after.TotalAlloc - before.TotalAlloc; a > 1<<20 {
				t.Errorf("Peaks allocated %d bytes; want < 1 MiB", a)
			}
		})
	}
}

// parseOggPageNoCRC is the length of the page at b.
func parseOggPageNoCRC(b []byte) (int64, bool) {
	if len(b) < 27 || len(b) < 27+int(b[26]) {
		return 0, false
	}
	n := int64(27 + int(b[26]))
	for _, l := range b[27 : 27+int(b[26])] {
		n += int64(l)
	}
	return n, true
}
