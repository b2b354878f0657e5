package music

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/media"
)

// audio writes u's audio post as ShareUpload does, without a file (the
// media path is the HTTP tests'), processed (ready) or not.
func (w *world) audio(u *auth.User, comment, vis string, ready bool) int64 {
	w.t.Helper()
	var id int64
	w.must(w.s.write(w.ctx, func(ctx context.Context, tx *db.Tx) (err error) {
		id, err = w.s.store.insert(ctx, tx, newPost{Author: u.ID, Comment: comment, Visibility: vis,
			At: w.s.now().UnixMilli(), Audio: true, Peaks: []byte{1, 2, 3}})
		return err
	}))
	if ready {
		w.ready(id)
	}
	return id
}

// ready is the derive job's OnReady for post id: 2.5 s, 200 peaks.
func (w *world) ready(id int64) {
	w.t.Helper()
	w.must(w.s.write(w.ctx, func(ctx context.Context, tx *db.Tx) error {
		return w.s.store.audioReady(ctx, tx, id, 1000+id, bytes.Repeat([]byte{200}, Bars), 2500)
	}))
}

// TestPrivacyAudio: an audio being processed is its author's only; a
// friends-only audio, its listens and its timed comments reach its author
// and their friends only, by every read and write of the Service.
func TestPrivacyAudio(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		link := w.share(w.ann, "https://example.com/song", "a link #memo", Public)
		pub := w.audio(w.ann, "open memo #memo", Public, true)
		priv := w.audio(w.ann, "whispered memo #memo", Friends, true)
		busy := w.audio(w.ann, "still processing #memo", Public, false)
		_, err := w.s.CommentAt(w.ctx, w.bob, priv, "this bit", 1200)
		w.must(err)
		w.must(w.s.Play(w.ctx, w.bob, priv))

		for _, c := range []struct {
			who  *auth.User
			name string
			want []int64
		}{{w.ann, "author", []int64{busy, priv, pub}}, {w.bob, "friend", []int64{priv, pub}},
			{w.cat, "stranger", []int64{pub}}, {nil, "visitor", []int64{pub}}} {
			f, err := w.s.Audio(w.ctx, c.who, 0)
			w.must(err)
			if got := ids(f); !slices.Equal(got, c.want) {
				t.Errorf("%s: audio timeline = %v; want %v (no link post %d)", c.name, got, c.want, link)
			}
			for _, p := range f.Posts {
				if !p.Audio() || (p.ID != busy && (len(p.Peaks) != Bars || p.DurationMS != 2500 || !p.Ready)) {
					t.Errorf("%s: post %d: kind %s, %d peaks, %d ms, ready %v", c.name, p.ID, p.Kind, len(p.Peaks), p.DurationMS, p.Ready)
				}
			}
			tagged, err := w.s.Tagged(w.ctx, c.who, "memo", 0)
			w.must(err)
			if got := ids(tagged); !slices.Equal(got, append(slices.Clone(c.want), link)) {
				t.Errorf("%s: #memo = %v; want %v and the link", c.name, got, c.want)
			}
			sees := slices.Contains(c.want, priv)
			th, err := w.s.Thread(w.ctx, c.who, priv, 0)
			if sees {
				w.must(err)
				if len(th.Comments) != 1 || th.Comments[0].AtMS != 1200 || th.Post.Plays < 1 {
					t.Errorf("%s: thread: %+v, %d plays; want the comment at 1200 ms and its plays", c.name, th.Comments, th.Post.Plays)
				}
			} else if errs.KindOf(err) != errs.NotFound {
				t.Errorf("%s: thread of a friends-only audio: %v; want not found", c.name, err)
			}
			if err := w.s.Play(w.ctx, c.who, priv); sees != (err == nil) || (!sees && errs.KindOf(err) != errs.NotFound) {
				t.Errorf("%s: play of a friends-only audio: %v", c.name, err)
			}
			if _, err := w.s.Thread(w.ctx, c.who, busy, 0); (c.who == w.ann) != (err == nil) {
				t.Errorf("%s: thread of an audio being processed: %v", c.name, err)
			}
			if c.who != nil && c.who != w.ann {
				if err := w.s.Play(w.ctx, c.who, busy); errs.KindOf(err) != errs.NotFound {
					t.Errorf("%s: play of an audio being processed: %v; want not found", c.name, err)
				}
				if _, err := w.s.CommentAt(w.ctx, c.who, busy, "early", 0); errs.KindOf(err) != errs.NotFound {
					t.Errorf("%s: comment on an audio being processed: %v; want not found", c.name, err)
				}
			}
			// No file store here: the file is not found for anyone.
			if _, err := w.s.AudioFile(w.ctx, c.who, priv); errs.KindOf(err) != errs.NotFound {
				t.Errorf("%s: audio file without a store: %v; want not found", c.name, err)
			}
		}
		if _, err := w.s.CommentAt(w.ctx, w.cat, priv, "hi", 0); errs.KindOf(err) != errs.NotFound {
			t.Errorf("stranger's timed comment: %v; want not found", err)
		}
		// Listens: the friend's two and the author's (the stranger's and
		// the visitor's refused).
		var plays int64
		w.must(w.d.QueryRow(w.ctx, "SELECT plays FROM music_posts WHERE id = ?", priv).Scan(&plays))
		if plays != 3 {
			t.Errorf("plays = %d; want 3", plays)
		}
		// A moment must be within the audio, and only an audio has moments.
		for _, c := range []struct {
			post int64
			at   int64
			want string
		}{{priv, 2501, "to 0:02"}, {link, 0, "Only an audio"}} {
			_, err := w.s.CommentAt(w.ctx, w.bob, c.post, "when?", c.at)
			if errs.KindOf(err) != errs.Invalid || !strings.Contains(errs.FieldsOf(err)["at"], c.want) {
				t.Errorf("comment at %d ms on post %d: %v; want Invalid at at", c.at, c.post, err)
			}
		}
		if err := w.s.Play(w.ctx, w.bob, link); errs.KindOf(err) != errs.NotFound {
			t.Errorf("a listen of a link post: %v; want not found", err)
		}
		// Trending: the friends-only audio's tags are not counted.
		top, err := w.s.store.trend.Top(w.ctx, w.d, 10)
		w.must(err)
		if len(top) != 1 || top[0].Tag != "memo" || top[0].Uses != 3 {
			t.Errorf("trending = %+v; want #memo used by the 3 public posts", top)
		}
	})
}

func TestParseAt(t *testing.T) {
	for _, c := range []struct {
		in   string
		ms   int64
		okay bool
	}{{"", -1, true}, {"0:42", 42000, true}, {"42", 42000, true}, {"1:02:03", 3723000, true}, {"0:01.5", 1500, true},
		{"1:60", 0, false}, {"-1", 0, false}, {"a", 0, false}, {"1::2", 0, false}, {"1:2:3:4", 0, false}} {
		ms, ok := parseAt(c.in)
		if ok != c.okay || (ok && ms != c.ms) {
			t.Errorf("parseAt(%q) = %d, %v; want %d, %v", c.in, ms, ok, c.ms, c.okay)
		}
	}
	if got := parsePeaks("0,128,255"); !bytes.Equal(got, []byte{0, 128, 255}) {
		t.Errorf("parsePeaks = %v", got)
	}
	for _, bad := range []string{"256", "1,x", "-1", strings.Repeat("1,", 2000) + "1"} {
		if got := parsePeaks(bad); got != nil {
			t.Errorf("parsePeaks(%.20q) = %v; want none", bad, got)
		}
	}
}

// TestAudioReadyKeepsBrowserPeaks: a file the server could not decode
// (AAC without ffmpeg: the waveform's meta has no peaks) keeps the peaks
// the browser sent, and takes the file's own duration, not the browser's.
func TestAudioReadyKeepsBrowserPeaks(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		var id int64
		w.must(w.s.write(w.ctx, func(ctx context.Context, tx *db.Tx) (err error) {
			id, err = w.s.store.insert(ctx, tx, newPost{Author: w.ann.ID, Visibility: Public, At: w.s.now().UnixMilli(),
				Audio: true, Peaks: []byte{9, 99, 199}, DurationMS: 999999})
			return err
		}))
		f := &media.File{ID: 77, Ref: id, Meta: media.Meta{"duration_ms": float64(2500)},
			Derived: map[string]*media.File{waveVariant: {Meta: media.Meta{"decoded": false}}}}
		w.must(w.s.onAudioReady(w.ctx, f))
		p, err := w.s.Post(w.ctx, w.bob, id)
		w.must(err)
		if !bytes.Equal(p.Peaks, []byte{9, 99, 199}) || p.DurationMS != 2500 || !p.Ready || p.MediaID != 77 {
			t.Fatalf("post: peaks %v, %d ms, ready %v, media %d; want the browser's peaks, the file's 2500 ms, ready, 77",
				p.Peaks, p.DurationMS, p.Ready, p.MediaID)
		}
		// A post gone meanwhile: the job ends quietly.
		f.Ref = id + 1000
		w.must(w.s.onAudioReady(w.ctx, f))
	})
}

// TestPlaysUnderACrowd: 64 listeners at once, 50 listens each: every one
// is counted (the group commit batches them), none lost.
func TestPlaysUnderACrowd(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		id := w.audio(w.ann, "crowd", Public, true)
		const listeners, each = 64, 50
		start := time.Now()
		var wg sync.WaitGroup
		errc := make(chan error, listeners)
		for i := range listeners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				u := []*auth.User{w.bob, w.cat, nil}[i%3]
				for range each {
					if err := w.s.Play(w.ctx, u, id); err != nil {
						errc <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Fatal(err)
		}
		took := time.Since(start)
		var plays int64
		w.must(w.d.QueryRow(w.ctx, "SELECT plays FROM music_posts WHERE id = ?", id).Scan(&plays))
		if plays != listeners*each {
			t.Fatalf("plays = %d; want %d", plays, listeners*each)
		}
		t.Logf("%d listens by %d listeners in %s: %.0f/s", plays, listeners, took.Round(time.Millisecond), float64(plays)/took.Seconds())
	})
}

// TestAudioFailed: a file the server could not read shows its author that
// it failed (the post stays theirs only); with peaks from the browser,
// which could read it, the post is shown as ready with them instead.
func TestAudioFailed(t *testing.T) {
	eachDB(t, func(t *testing.T, w *world) {
		post := func(peaks []byte) int64 {
			var id int64
			w.must(w.s.write(w.ctx, func(ctx context.Context, tx *db.Tx) (err error) {
				id, err = w.s.store.insert(ctx, tx, newPost{Author: w.ann.ID, Visibility: Public, At: w.s.now().UnixMilli(),
					Audio: true, Peaks: peaks})
				return err
			}))
			w.must(w.s.onAudioFailed(w.ctx, &media.File{ID: 70 + id, Ref: id, Status: media.Failed,
				Meta: media.Meta{"duration_ms": float64(2500), "error": "damaged"}}))
			return id
		}
		bare, browser := post(nil), post([]byte{9, 99})
		p, err := w.s.Post(w.ctx, w.ann, bare)
		w.must(err)
		if !p.Failed || p.Ready {
			t.Errorf("without the browser's peaks: failed %v, ready %v; want failed, not ready", p.Failed, p.Ready)
		}
		if _, err := w.s.Post(w.ctx, w.bob, bare); errs.KindOf(err) != errs.NotFound {
			t.Errorf("a friend reads the failed post: %v; want not found", err)
		}
		p, err = w.s.Post(w.ctx, w.bob, browser)
		w.must(err)
		if p.Failed || !p.Ready || !bytes.Equal(p.Peaks, []byte{9, 99}) || p.DurationMS != 2500 {
			t.Errorf("with the browser's peaks: failed %v, ready %v, peaks %v, %d ms; want ready with them, 2500 ms",
				p.Failed, p.Ready, p.Peaks, p.DurationMS)
		}
	})
}
