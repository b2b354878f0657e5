package music

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/load"
)

// Music's load scenarios, against `tutti seed music`:
//
//   - music: the seed's critical path (its Tsung test, spec/music.md):
//     20 % new users sign up, log in, edit their profile with an avatar,
//     browse music, search users and delete their account; 80 % returning
//     (seeded) users log in, browse music, post a song, comment, like,
//     upload an audio, browse the audios, look at their own timeline,
//     search users and delete the song. Up to `think` (3 s) between steps;
//     phases of 30 s at 1, 2, 4, 8, 16, 32 and 64 new users a second.
//   - music-listen: visitors play the seeded audio posts through Range
//     requests, a chunk at a time, as a player does, while `posters`
//     signed-in users post songs; samples "ttfb" (time to the first byte
//     of each range) and "ms_per_MiB" (a whole file's time per MiB: the
//     inverse of a listener's bytes/s).
//
// Every request of a step is named after it in the report. The server must
// run without rate limits (--rate-limits=false): every simulated person
// signs up or logs in from 127.0.0.1.

// LoadScenarios are music's scenarios by name.
func LoadScenarios() map[string]load.Factory {
	return map[string]load.Factory{
		"music":        criticalScenario,
		"music-listen": listenScenario,
	}
}

// musicLoad is the state the sessions of one run share.
type musicLoad struct {
	ids    *SeedIDs
	think  time.Duration // the longest pause between two steps
	next   atomic.Int64  // the next seeded user to log in as
	made   atomic.Int64  // new users and posts made, for unique names
	prefix string        // this run's, for the new users' names
}

func newMusicLoad(opts load.Options) (*musicLoad, error) {
	ids, err := LoadSeedIDs(opts.SeedFile)
	if err != nil {
		return nil, err
	}
	s := &musicLoad{ids: ids, prefix: "ld" + strconv.FormatInt(time.Now().UnixMilli()%1e9, 36)}
	if s.think, err = opts.Duration("think", 3*time.Second); err != nil {
		return nil, fmt.Errorf("music: %w", err)
	}
	return s, nil
}

func criticalScenario(opts load.Options) (*load.Scenario, error) {
	sc := &load.Scenario{
		Name: "music",
		Description: "the seed's critical path: 20 % new users (sign up, log in, profile with avatar, browse, search, delete the account), " +
			"80 % returning (log in, browse, post a song, comment, like, upload an audio, browse audios, my timeline, search, delete the song) [opts: think=3s]",
		Phases: load.Rates(30*time.Second, 1, 2, 4, 8, 16, 32, 64),
		Grace:  60 * time.Second,
	}
	if opts.Target == nil {
		return sc, nil
	}
	s, err := newMusicLoad(opts)
	if err != nil {
		return nil, err
	}
	sc.Sessions = []load.Session{
		{Name: "new_user", Weight: 1, Run: s.newUser},
		{Name: "returning", Weight: 4, Run: s.returning},
	}
	return sc, nil
}

// pause is the think time between two steps.
func (s *musicLoad) pause(ctx context.Context, c *load.Client) error {
	if s.think <= 0 {
		return nil
	}
	return c.Think(ctx, 0, s.think)
}

// steps runs each step with a pause before all but the first.
func (s *musicLoad) steps(ctx context.Context, c *load.Client, steps ...func() error) error {
	for i, st := range steps {
		if i > 0 {
			if err := s.pause(ctx, c); err != nil {
				return err
			}
		}
		if err := st(); err != nil {
			return err
		}
	}
	return nil
}

// ended checks that a step ended on the page it should have.
func ended(p *load.Page, step, path string) error {
	if p.URL.Path != path {
		return fmt.Errorf("music: %s ended on %s, not %s", step, p.URL.Path, path)
	}
	return nil
}

// login signs c in through the login form, landing on /music/.
func (s *musicLoad) login(ctx context.Context, c *load.Client, p *load.Page, user, password string) error {
	if p == nil {
		var err error
		if p, err = c.Get(ctx, "login_page", "/account/login?next=/music/"); err != nil {
			return err
		}
	}
	f, err := p.Form("/account/login")
	if err != nil {
		return err
	}
	f.Set("login", user)
	f.Set("password", password)
	f.Set("next", "/music/")
	if p, err = c.Submit(ctx, "login", f); err != nil {
		return err
	}
	return ended(p, "login as "+user, "/music/")
}

// newUser: sign up, log out and in again, edit the profile with a new
// picture, browse music, search users, delete the account.
func (s *musicLoad) newUser(ctx context.Context, c *load.Client) error {
	name := fmt.Sprintf("%s%d", s.prefix, s.made.Add(1))
	password := "pw-" + name + "-load"
	var page *load.Page
	return s.steps(ctx, c,
		func() error { // sign up
			p, err := c.Get(ctx, "signup_page", "/account/signup?next=/music/")
			if err != nil {
				return err
			}
			f, err := p.Form("/account/signup")
			if err != nil {
				return err
			}
			f.Set("username", name)
			f.Set("email", name+"@load.tutti.test")
			f.Set("password", password)
			_, err = c.Submit(ctx, "signup", f)
			return err
		},
		func() error { // log in (after logging out)
			var err error
			if page, err = c.PostForm(ctx, "logout", "/account/logout", nil); err != nil {
				return err
			}
			return s.login(ctx, c, page, name, password)
		},
		func() error { // the profile, with an avatar
			p, err := c.Get(ctx, "settings_page", "/account/settings")
			if err != nil {
				return err
			}
			f, err := p.Form("/account/settings")
			if err != nil {
				return err
			}
			f.Set("display_name", "Load Tester "+name)
			f.Set("bio", "I listen to #jazz and #techno; a simulated person.")
			req, err := multipartRequest(ctx, c.URL("/account/settings"), f.Values, "avatar", "me.png", avatarPNG(c.Intn(1<<24)))
			if err != nil {
				return err
			}
			req.Header.Set("Referer", p.URL.String())
			p, err = c.Do(ctx, "edit_profile", req)
			if err != nil {
				return err
			}
			return ended(p, "edit profile", "/account/settings")
		},
		func() error { _, err := c.Get(ctx, "browse_music", "/music/"); return err },
		func() error { return s.search(ctx, c) },
		func() error { // delete the account
			p, err := c.Get(ctx, "delete_account_page", "/account/delete")
			if err != nil {
				return err
			}
			f, err := p.Form("/account/delete")
			if err != nil {
				return err
			}
			f.Set("password", password)
			_, err = c.Submit(ctx, "delete_account", f)
			return err
		},
	)
}

// search looks a seeded user up by the beginning of their name.
func (s *musicLoad) search(ctx context.Context, c *load.Client) error {
	u := s.ids.Users[c.Intn(len(s.ids.Users))]
	_, err := c.Get(ctx, "search_users", "/music/people?q="+url.QueryEscape(u[:min(len(u), 6)]))
	return err
}

var (
	likeForms    = regexp.MustCompile(`action="(/music/p/(\d+)/like)"`)
	commentForms = regexp.MustCompile(`action="(/music/p/(\d+)/comments)"`)
	postArticles = regexp.MustCompile(`<article class="post[^"]*" id="p-(\d+)"`)
)

// pick is the action of one of the forms re finds in the post cards of
// p, at random, leaving out the viewer's own posts and the songs the load
// test posted (their session deletes them at any moment: a like or a
// comment would be a 404); "" if none. re's first group is the action.
func (s *musicLoad) pick(c *load.Client, p *load.Page, re *regexp.Regexp) string {
	var actions []string
	cards := postArticles.FindAllSubmatchIndex(p.Body, -1)
	for k, m := range cards {
		end := len(p.Body)
		if k+1 < len(cards) {
			end = cards[k+1][0]
		}
		card := p.Body[m[0]:end]
		id, _ := strconv.ParseInt(string(p.Body[m[2]:m[3]]), 10, 64)
		if id > s.ids.LastPost && bytes.Contains(card, []byte("(song "+s.prefix)) {
			continue
		}
		// Not the viewer's own: its comments-off form comes first and is
		// what Page.Form would find for ".../comments".
		if bytes.Contains(card, []byte(`/comments-off"`)) {
			continue
		}
		if f := re.FindSubmatch(card); f != nil {
			actions = append(actions, string(f[1]))
		}
	}
	if len(actions) == 0 {
		return ""
	}
	return actions[c.Intn(len(actions))]
}

// seededForm is a form re finds on p for a post that stays (pick),
// reading older pages as a person scrolls (up to five) while p has only
// the viewer's posts and songs the load test is about to delete, then
// everyone's public posts (a few friends' posts may be all of that).
func (s *musicLoad) seededForm(ctx context.Context, c *load.Client, p *load.Page, re *regexp.Regexp) (*load.Page, string, error) {
	for _, start := range []string{"", "/music/everyone"} {
		if start != "" {
			var err error
			if p, err = c.Get(ctx, "browse_everyone", start); err != nil {
				return nil, "", err
			}
		}
		for range 6 {
			if action := s.pick(c, p, re); action != "" {
				return p, action, nil
			}
			older := p.Links("before=")
			if len(older) == 0 {
				break
			}
			var err error
			if p, err = c.Get(ctx, "browse_older", older[0]); err != nil {
				return nil, "", err
			}
		}
	}
	return nil, "", fmt.Errorf("music: no post to act on from %s", p.URL.Path)
}

// returning: a seeded user's visit.
func (s *musicLoad) returning(ctx context.Context, c *load.Client) error {
	user := s.ids.Users[int(s.next.Add(1)-1)%len(s.ids.Users)]
	n := s.made.Add(1)
	token := fmt.Sprintf("%s-%d", s.prefix, n) // the song's comment has "(song TOKEN)", the audio's "memo TOKEN"
	rng := rand.New(rand.NewPCG(uint64(n), uint64(c.Intn(1<<30))))
	var home *load.Page
	var song string
	return s.steps(ctx, c,
		func() error { return s.login(ctx, c, nil, user, s.ids.Password) },
		func() error { // browse music
			var err error
			home, err = c.Get(ctx, "browse_music", "/music/")
			return err
		},
		func() error { // post a song
			f, err := home.Form("#share")
			if err != nil {
				return err
			}
			f.Set("url", seedLink(rng))
			f.Set("comment", seedText(rng, rand.NewZipf(rng, 1.3, 1, uint64(len(seedTags)-1)), false)+" (song "+token+")")
			f.Set("visibility", []string{Public, Public, Public, Friends}[rng.IntN(4)])
			p, err := c.Submit(ctx, "post_song", f)
			if err == nil {
				home = p
			}
			return err
		},
		func() error { // comment on a post of the page
			p, action, err := s.seededForm(ctx, c, home, commentForms)
			if err != nil {
				return err
			}
			f, err := p.Form(action)
			if err != nil {
				return err
			}
			f.Set("body", seedReplies[rng.IntN(len(seedReplies))])
			_, err = c.Submit(ctx, "comment", f)
			return err
		},
		func() error { // like one
			p, action, err := s.seededForm(ctx, c, home, likeForms)
			if err != nil {
				return err
			}
			f, err := p.Form(action)
			if err != nil {
				return err
			}
			_, err = c.Submit(ctx, "like", f)
			return err
		},
		func() error { return s.uploadAudio(ctx, c, home, rng, token) },
		func() error { return s.browseAudios(ctx, c, home) },
		func() error { // my timeline: find the song posted above
			p, err := c.Get(ctx, "my_timeline", personURL(user))
			if err != nil {
				return err
			}
			at := bytes.Index(p.Body, []byte("(song "+token+")"))
			if at < 0 {
				return fmt.Errorf("music: the song just posted is not on %s", p.URL.Path)
			}
			m := postArticles.FindAllSubmatch(p.Body[:at], -1)
			if len(m) == 0 {
				return fmt.Errorf("music: no post before the song on %s", p.URL.Path)
			}
			song = string(m[len(m)-1][1])
			return nil
		},
		func() error { return s.search(ctx, c) },
		func() error { // delete the song, confirming on its page
			p, err := c.Get(ctx, "delete_song_page", "/music/p/"+song+"/delete")
			if err != nil {
				return err
			}
			f, err := p.Form("/music/p/" + song + "/delete")
			if err != nil {
				return err
			}
			_, err = c.Submit(ctx, "delete_song", f)
			return err
		},
	)
}

// audioSupported reports whether the page offers audio uploads (a file
// field named audio): a build without audio posts skips those steps, and
// the report counts them as the samples "skipped_upload_audio" and
// "skipped_browse_audios", never as a success.
func audioSupported(p *load.Page) bool {
	return bytes.Contains(p.Body, []byte(`name="audio"`))
}

// uploadAudio posts a short WAV as an audio post, as the share form's
// audio tab sends it (multipart: kind=audio, the file in "audio").
func (s *musicLoad) uploadAudio(ctx context.Context, c *load.Client, home *load.Page, rng *rand.Rand, token string) error {
	if !audioSupported(home) {
		c.Record("skipped_upload_audio", 0)
		return nil
	}
	b, _ := seedWAV(rng)
	// As the audio form sends it, without the peaks and length that its
	// script measures in the browser (the server makes its own).
	v := url.Values{"kind": {"audio"}, "comment": {"Voice memo " + token + " #voicememo"}, "visibility": {Public},
		"peaks": {""}, "duration_ms": {""}}
	req, err := multipartRequest(ctx, c.URL("/music/posts"), v, "audio", "memo.wav", b)
	if err != nil {
		return err
	}
	req.Header.Set("Referer", home.URL.String())
	_, err = c.Do(ctx, "upload_audio", req)
	return err
}

// browseAudios reads the audio timeline.
func (s *musicLoad) browseAudios(ctx context.Context, c *load.Client, home *load.Page) error {
	if !audioSupported(home) {
		c.Record("skipped_browse_audios", 0)
		return nil
	}
	_, err := c.Get(ctx, "browse_audios", "/music/audio")
	return err
}

// multipartRequest is a POST of fields and one file, as a browser sends a
// form with enctype multipart/form-data.
func multipartRequest(ctx context.Context, to string, fields url.Values, fileField, fileName string, file []byte) (*http.Request, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, vs := range fields {
		if k == fileField {
			continue
		}
		for _, v := range vs {
			if err := w.WriteField(k, v); err != nil {
				return nil, err
			}
		}
	}
	fw, err := w.CreateFormFile(fileField, fileName)
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(file); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, to, bytes.NewReader(body.Bytes()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	return req, nil
}

// avatarPNG is a 96×96 picture in two colours of seed's choosing.
func avatarPNG(seed int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 96, 96))
	a := color.RGBA{uint8(seed), uint8(seed >> 8), uint8(seed >> 16), 255}
	b := color.RGBA{255 - a.R, 255 - a.G, 255 - a.B, 255}
	for y := range 96 {
		for x := range 96 {
			if (x/16+y/16)%2 == 0 {
				img.Set(x, y, a)
			} else {
				img.Set(x, y, b)
			}
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return buf.Bytes()
}
