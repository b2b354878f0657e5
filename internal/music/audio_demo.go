package music

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
)

// demoAudio is the demo's audio post: leo's short melody, made here as a
// WAV (no fixture to ship), processed by the media job like an upload,
// with two comments pinned to its moments.
func (a *App) demoAudio(ctx context.Context, leo, mia *auth.User) error {
	if a.Media == nil {
		return nil
	}
	id, err := a.svc.ShareAudio(ctx, leo, AudioDraft{Comment: "Warming up before tonight's gig: a little arpeggio #live #practice",
		Visibility: Public}, bytes.NewReader(melody()))
	if err != nil {
		return err
	}
	wait, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := a.Media.Wait(wait); err != nil {
		return err
	}
	for _, c := range []struct {
		by   *auth.User
		at   int64
		body string
	}{{mia, 1600, "This turn is lovely"}, {leo, 4800, "Here I rushed it, I know"}} {
		if _, err := a.svc.CommentAt(ctx, c.by, id, c.body, c.at); err != nil {
			return err
		}
	}
	return nil
}

// melody is 6.4 s of arpeggios (sixteen notes of
// 0.4 s, each struck and fading) as a mono 16-bit WAV at 8 kHz: 100 KB.
func melody() []byte {
	const rate, note = 8000, 3200
	freqs := []float64{261.63, 329.63, 392.00, 523.25, 392.00, 329.63, 293.66, 349.23,
		440.00, 587.33, 440.00, 349.23, 261.63, 392.00, 523.25, 261.63}
	n := len(freqs) * note
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+2*n))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(2 * rate), uint16(2), uint16(16)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(2*n))
	for i, f := range freqs {
		loud := 0.35 + 0.5*float64(i%4)/3 // a swell every four notes
		for j := range note {
			t := float64(j) / rate
			v := loud * math.Exp(-3*t) * (math.Sin(2*math.Pi*f*t) + 0.3*math.Sin(4*math.Pi*f*t)) / 1.3
			binary.Write(&b, binary.LittleEndian, int16(v*32767))
		}
	}
	return b.Bytes()
}
