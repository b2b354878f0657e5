package music

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/media/audio"
)

// The seed's audio files: WAV, 8 kHz mono 16-bit, one to two seconds
// (16 to 32 KB): a few notes of a sine with a little noise, each file its
// own melody, made here rather than read from anywhere.
const (
	seedRate   = 8000
	seedAudioK = "music-audio" // the media kind of an audio post's file (its ref: the post)
	seedPeaksN = 200           // bars of a waveform
)

// seedMedia is what seedAudios made, by post index (zero for a song).
type seedMedia struct {
	ids   []int64
	peaks [][]byte
}

// seedAudios writes a WAV file for each audio post of ps to st, as a
// ready media original of the post (media_files, kind music-audio, ref the
// post), its waveform computed by audio.Peaks as the upload path does, and
// fills each post's length. Files are made and stored by as many workers
// as there are CPUs; the rows go in chunks. A failure leaves the files
// written so far (a seed is for a fresh site).
func seedAudios(ctx context.Context, d *db.DB, st files.Storage, seed uint64, ps []seedPost, now time.Time, step func(int)) (*seedMedia, error) {
	m := &seedMedia{ids: make([]int64, len(ps)), peaks: make([][]byte, len(ps))}
	var base int64
	if err := db.Scan(d.QueryRow(ctx, `SELECT COALESCE(MAX(id), 0) FROM media_files`), &base); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	var todo []int
	for i := range ps {
		if ps[i].audio {
			todo = append(todo, i)
		}
	}
	type made struct {
		key, sum string
		size     int64
	}
	out := make([]made, len(ps))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	work := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				b, dur := seedWAV(rand.New(rand.NewPCG(seed, uint64(i)+1<<32)))
				peaks, err := audio.Peaks(ctx, bytes.NewReader(b), int64(len(b)), seedPeaksN)
				key := files.NewKey(media.PrivatePrefix+seedAudioK, ".wav")
				if err == nil {
					err = st.Put(ctx, key, bytes.NewReader(b), "audio/wav")
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("music: seed: audio %d: %w", i, err)
					}
					mu.Unlock()
					cancel()
					continue
				}
				sum := sha256.Sum256(b)
				out[i] = made{key: key, sum: hex.EncodeToString(sum[:]), size: int64(len(b))}
				m.peaks[i] = peaks
				ps[i].durMS = dur.Milliseconds()
			}
		}()
	}
	for _, i := range todo {
		select {
		case work <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		step(1)
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rows := make([][]any, 0, len(todo))
	for n, i := range todo {
		id := base + int64(n) + 1
		m.ids[i] = id
		f := out[i]
		meta := fmt.Sprintf(`{"duration_ms":%d,"format":"wav"}`, ps[i].durMS)
		rows = append(rows, []any{id, seedAudioK, ps[i].id, ps[i].author, f.key, f.size, "audio/wav", f.sum, media.Ready, meta, ps[i].created})
	}
	if err := d.CopyChunks(ctx, "media_files", []string{"id", "kind", "ref", "owner_id", "key", "size", "type", "sha256", "status", "meta", "created_at"},
		rows, func(int) {}); err != nil {
		return nil, fmt.Errorf("music: seed: %w", err)
	}
	return m, nil
}

// seedWAV makes one to two seconds of a melody: two to five notes of a
// pentatonic scale, each a sine with a short attack and decay, over quiet
// noise; some files are a voice-memo-like noise burst instead.
func seedWAV(rng *rand.Rand) ([]byte, time.Duration) {
	n := seedRate + rng.IntN(seedRate+1) // 1 to 2 s
	samples := make([]float64, n)
	if rng.IntN(8) == 0 { // a burst of noise, loud then fading
		for i := range samples {
			samples[i] = (rng.Float64()*2 - 1) * 0.6 * math.Exp(-3*float64(i)/float64(n))
		}
	} else {
		scale := []float64{261.63, 293.66, 329.63, 392.00, 440.00, 523.25, 587.33, 659.25}
		notes := 2 + rng.IntN(4)
		per := n / notes
		for k := range notes {
			f := scale[rng.IntN(len(scale))]
			amp := 0.3 + 0.5*rng.Float64()
			for j := range per {
				t := float64(j) / seedRate
				env := math.Min(1, float64(j)/80) * math.Exp(-2.5*float64(j)/float64(per))
				samples[k*per+j] = amp * env * (math.Sin(2*math.Pi*f*t) + 0.3*math.Sin(4*math.Pi*f*t)) / 1.3
			}
		}
		for i := range samples {
			samples[i] += (rng.Float64()*2 - 1) * 0.01
		}
	}
	return wavBytes(samples), time.Duration(n) * time.Second / seedRate
}

// wavBytes is samples (-1..1) as a 16-bit mono WAV file at seedRate.
func wavBytes(samples []float64) []byte {
	data := 2 * len(samples)
	b := make([]byte, 44+data)
	copy(b, "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+data))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], seedRate)
	binary.LittleEndian.PutUint32(b[28:], 2*seedRate)
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(data))
	for i, s := range samples {
		v := int16(math.Max(-1, math.Min(1, s)) * 32767)
		binary.LittleEndian.PutUint16(b[44+2*i:], uint16(v))
	}
	return b
}
