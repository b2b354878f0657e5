package music

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/load"
)

// listenScenario: --closed N sessions, of which `posters` log in and post
// songs at `rate` posts/s in all, and the others play the seeded public
// audio posts, one after another, a Range request per chunk.
func listenScenario(opts load.Options) (*load.Scenario, error) {
	sc := &load.Scenario{
		Name: "music-listen",
		Description: "listeners play the seeded audio posts with Range requests (GET /music/p/{id}/audio, a `chunk` at a time, " +
			"paced as a player plays them, or as fast as they come with pace=fast) while `posters` post `rate` songs/s in all; " +
			"samples ttfb (first byte of each range) and ms_per_MiB (a file's time per MiB) [opts: posters=2, rate=2, chunk=8192, pace=play]",
		Phases: load.Rates(30*time.Second, 20),
	}
	if opts.Target == nil {
		return sc, nil
	}
	s, err := newMusicLoad(opts)
	if err != nil {
		return nil, err
	}
	if len(s.ids.Audios) == 0 {
		return nil, errors.New("music: music-listen: the seed has no public audio posts (tutti seed music --audios N)")
	}
	l := &listen{musicLoad: s}
	if l.posters, err = opts.Int("posters", 2, 0); err != nil {
		return nil, fmt.Errorf("music: %w", err)
	}
	if l.rate, err = opts.Float("rate", 2); err != nil {
		return nil, fmt.Errorf("music: %w", err)
	}
	if l.chunk, err = opts.Int("chunk", 8192, 512); err != nil {
		return nil, fmt.Errorf("music: %w", err)
	}
	switch pace := opts.String("pace", "play"); pace {
	case "play":
	case "fast":
		l.fast = true
	default:
		return nil, fmt.Errorf("music: option pace=%q: want play or fast", pace)
	}
	sc.Sessions = []load.Session{{Name: "listen", Weight: 1, Run: l.run}}
	return sc, nil
}

type listen struct {
	*musicLoad
	posters int
	rate    float64
	chunk   int
	fast    bool
	started atomic.Int64
	once    sync.Once
	t0      time.Time
}

func (l *listen) run(ctx context.Context, c *load.Client) error {
	l.once.Do(func() { l.t0 = time.Now() })
	if i := int(l.started.Add(1) - 1); i < l.posters {
		return l.post(ctx, c, i)
	}
	for !c.Over() {
		id := l.ids.Audios[c.Intn(len(l.ids.Audios))]
		if err := l.play(ctx, c, id); err != nil {
			return err
		}
		if l.think > 0 && !l.fast {
			if err := c.Think(ctx, 0, l.think); err != nil {
				return nil
			}
		}
	}
	return nil
}

// play fetches post id's audio from its start to its end, a chunk at a
// time; paced as a player is, it asks for the next chunk when what it has
// left to play is less than a chunk's time (16 KB a second: the seed's
// 8 kHz 16-bit files).
func (l *listen) play(ctx context.Context, c *load.Client, id int64) error {
	const bytesPerSecond = 2 * seedRate
	path := "/music/p/" + strconv.FormatInt(id, 10) + "/audio"
	start := time.Now()
	var got, total int64 = 0, -1
	for total < 0 || got < total {
		if c.Over() && total >= 0 {
			return nil
		}
		if !l.fast && got > 0 {
			played := time.Duration(float64(got-int64(l.chunk)) / bytesPerSecond * float64(time.Second))
			if err := c.SleepUntil(ctx, start.Add(played)); err != nil {
				return nil
			}
		}
		var first time.Time
		sent := time.Now()
		trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { first = time.Now() }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, c.URL(path), nil)
		if err != nil {
			return err
		}
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", got, got+int64(l.chunk)-1))
		name := "audio_range"
		if got == 0 {
			name = "audio_first"
		}
		p, err := c.Do(ctx, name, req)
		if err != nil {
			return err
		}
		if !first.IsZero() {
			c.Record("ttfb", first.Sub(sent))
		}
		if p.Status != http.StatusPartialContent {
			return fmt.Errorf("music: %s answered %d to a range, not 206", path, p.Status)
		}
		n, err := rangeTotal(p.Header.Get("Content-Range"))
		if err != nil {
			return fmt.Errorf("music: %s: %w", path, err)
		}
		total = n
		got += int64(len(p.Body))
		if len(p.Body) == 0 {
			return fmt.Errorf("music: %s: an empty range at %d of %d", path, got, total)
		}
	}
	if l.fast && total > 0 {
		c.Record("ms_per_MiB", time.Duration(float64(time.Since(start))*float64(1<<20)/float64(total)))
	}
	return nil
}

// rangeTotal is the complete length of a Content-Range ("bytes a-b/n").
func rangeTotal(v string) (int64, error) {
	_, n, ok := strings.Cut(v, "/")
	if !ok || !strings.HasPrefix(v, "bytes ") {
		return 0, fmt.Errorf("Content-Range %q", v)
	}
	t, err := strconv.ParseInt(n, 10, 64)
	if err != nil || t <= 0 {
		return 0, fmt.Errorf("Content-Range %q", v)
	}
	return t, nil
}

// post: poster k of n logs in and posts a song every n/rate seconds,
// offset by k/rate, until the run ends; posting goes through the share
// form's endpoint asking for JSON (201), as roar's fan-out does.
func (l *listen) post(ctx context.Context, c *load.Client, k int) error {
	user := l.ids.Users[int(l.next.Add(1)-1)%len(l.ids.Users)]
	if err := l.login(ctx, c, nil, user, l.ids.Password); err != nil {
		return err
	}
	if l.rate <= 0 {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(k), 7))
	zipf := rand.NewZipf(rng, 1.3, 1, uint64(len(seedTags)-1))
	every := time.Duration(float64(l.posters) / l.rate * float64(time.Second))
	next := time.Now().Add(time.Duration(float64(k) / l.rate * float64(time.Second)))
	for ; !c.Over(); next = next.Add(every) {
		if err := c.SleepUntil(ctx, next); err != nil || c.Over() {
			return nil
		}
		v := url.Values{"url": {seedLink(rng)}, "comment": {seedText(rng, zipf, false)}, "visibility": {Public}}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL("/music/posts"), strings.NewReader(v.Encode()))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Accept", "application/json")
		if p, err := c.Do(ctx, "post_song", req); err == nil && p.Status != http.StatusCreated {
			return fmt.Errorf("music: a post answered %d, not 201", p.Status)
		}
	}
	return nil
}
