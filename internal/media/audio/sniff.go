package audio

import (
	"bytes"
	"fmt"
)

// sniffLen is how many first bytes Probe hands to Sniff.
const sniffLen = 4096

// Sniff tells the format from the first bytes of a file (a few hundred are
// enough; it looks at no more than it is given): one of Info.Format's
// values. For WebM and M4A it names the codec that Chromium and phones put
// there (Opus, AAC); Probe checks the tracks. Raw AAC, AMR, .3gp, video and
// anything else are not ok.
func Sniff(head []byte) (format string, ok bool) {
	switch k := sniffKind(head); k {
	case "ogg":
		if len(head) >= 36 && bytes.Equal(head[28:36], []byte("OpusHead")) {
			return "ogg-opus", true
		}
		if len(head) >= 35 && bytes.Equal(head[28:35], []byte("\x01vorbis")) {
			return "ogg-vorbis", true
		}
		return "", false
	case "webm":
		return "webm-opus", true
	case "m4a":
		return "m4a-aac", true
	case "":
		return "", false
	default:
		return k, true
	}
}

// sniffKind is the container: mp3, ogg, webm, m4a, flac, wav or "".
func sniffKind(b []byte) string {
	switch {
	case len(b) >= 10 && bytes.HasPrefix(b, []byte("ID3")) && b[3] < 0xFF && b[4] < 0xFF:
		return "mp3"
	case len(b) >= 4 && isMP3Header(u32be(b)):
		return "mp3"
	case len(b) >= 28 && bytes.HasPrefix(b, []byte("OggS\x00")):
		return "ogg"
	case len(b) >= 4 && bytes.HasPrefix(b, []byte("\x1a\x45\xdf\xa3")):
		// EBML: WebM unless its DocType says matroska (only webm is served).
		if bytes.Contains(b[:min(len(b), 64)], []byte("webm")) {
			return "webm"
		}
		return ""
	case len(b) >= 12 && bytes.Equal(b[4:8], []byte("ftyp")):
		if is3GP(b[8:12]) {
			return ""
		}
		return "m4a"
	case len(b) >= 8 && bytes.HasPrefix(b, []byte("fLaC")):
		return "flac"
	case len(b) >= 12 && (bytes.HasPrefix(b, []byte("RIFF")) || bytes.HasPrefix(b, []byte("RF64"))) && bytes.Equal(b[8:12], []byte("WAVE")):
		return "wav"
	}
	return ""
}

func is3GP(brand []byte) bool {
	return bytes.HasPrefix(brand, []byte("3gp")) || bytes.HasPrefix(brand, []byte("3g2"))
}

// refuse is the error for a head that Sniff did not take.
func refuse(b []byte) error {
	switch {
	case bytes.HasPrefix(b, []byte("#!AMR")):
		return ErrAMR
	case len(b) >= 12 && bytes.Equal(b[4:8], []byte("ftyp")) && is3GP(b[8:12]):
		return ErrAMR
	case bytes.HasPrefix(b, []byte("ADIF")):
		return ErrRawAAC
	case len(b) >= 7 && b[0] == 0xFF && b[1]&0xF6 == 0xF0:
		// ADTS: sync, layer 00.
		return ErrRawAAC
	case len(b) >= 36 && bytes.HasPrefix(b, []byte("OggS")):
		return fmt.Errorf("%w (ogg with another codec)", ErrUnsupported)
	}
	return ErrUnsupported
}
