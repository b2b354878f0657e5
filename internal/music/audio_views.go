package music

import (
	"fmt"
	"strconv"
	"strings"
)

// linkForm is the share form as the link's form shows it: its errors only
// if the link was what was sent.
func linkForm(f *shareForm) *shareForm {
	if f == nil || !f.Audio {
		return f
	}
	return &shareForm{}
}

// audioForm is the share form as the audio's form shows it.
func audioForm(f *shareForm) *shareForm {
	if f == nil || f.Audio {
		return f
	}
	return &shareForm{}
}

func audioHelp() string {
	return fmt.Sprintf("MP3, M4A (AAC), Ogg (Vorbis or Opus), WebM (Opus), FLAC or WAV; up to %d MB and %d minutes.",
		MaxAudioBytes>>20, int(MaxAudioDuration.Minutes()))
}

func audioURL(id int64) string { return postURL(id) + "/audio" }

// atURL is a moment of an audio: the file itself at that time (a media
// fragment, which browsers play from there), where audio.js seeks the
// page's player instead.
func atURL(id, ms int64) string {
	return audioURL(id) + "#t=" + strconv.FormatFloat(float64(ms)/1000, 'f', -1, 64)
}

func clipID(cardID int64) string { return "played-" + itoa(cardID) }

// waveID names a card's waveform path, drawn once and used twice (the
// bars, and the bars played under the clip): its 200 bars are most of an
// audio card's bytes.
func waveID(cardID int64) string { return "wave-" + itoa(cardID) }

func atID(cardID int64, t *Post) string {
	if cardID == 0 {
		return "at"
	}
	return "at-" + itoa(cardID)
}

// bars is how many bars a post's waveform draws.
func bars(t *Post) int {
	if len(t.Peaks) == 0 {
		return Bars
	}
	return len(t.Peaks)
}

func waveBox(t *Post) string { return "0 0 " + strconv.Itoa(bars(t)) + " 100" }

// wavePath draws peaks as bars (one a unit of width, centred on the
// middle line, at least a hairline), in one path; none: a flat line.
func wavePath(peaks []byte) string {
	if len(peaks) == 0 {
		return "M0 49h" + strconv.Itoa(Bars) + "v2H0z"
	}
	var b strings.Builder
	b.Grow(len(peaks) * 22)
	for i, v := range peaks {
		h := max(2, int(v)*96/255)
		y := (100 - h) / 2
		fmt.Fprintf(&b, "M%d.15 %dh.7v%dh-.7z", i, y, h)
	}
	return b.String()
}

// tickX is where a comment at ms is on the waveform.
func tickX(t *Post, ms int64) string {
	if t.DurationMS <= 0 {
		return "0"
	}
	x := float64(bars(t)) * float64(min(max(ms, 0), t.DurationMS)) / float64(t.DurationMS)
	return strconv.FormatFloat(min(x, float64(bars(t))-tickW), 'f', 2, 64)
}

const tickW = 1.2

func tickWidth(*Post) string { return strconv.FormatFloat(tickW, 'f', 1, 64) }

// parseAt reads a comment's moment: "", or m:ss, h:mm:ss or seconds
// (fractions allowed); -1: none. ok false: not a time.
func parseAt(s string) (ms int64, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return -1, true
	}
	parts := strings.Split(s, ":")
	if len(parts) > 3 {
		return 0, false
	}
	var total float64
	for i, p := range parts {
		if p == "" {
			return 0, false
		}
		last := i == len(parts)-1
		var v float64
		var err error
		if last {
			v, err = strconv.ParseFloat(p, 64)
		} else {
			var n int64
			n, err = strconv.ParseInt(p, 10, 64)
			v = float64(n)
		}
		if err != nil || v < 0 || (i > 0 && v >= 60) || v > 1e7 {
			return 0, false
		}
		total = total*60 + v
	}
	return int64(total*1000 + 0.5), true
}
