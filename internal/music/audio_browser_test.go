package music_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// TestBrowserVoiceMemo: Ann (desktop) records a voice memo with the
// browser's microphone (chromium's fake device, playing a tone file) and
// posts it for her friends; once processed its waveform shows. Bob (a
// phone) plays it by clicking the waveform (a listen is counted once),
// comments at a moment; the tick appears on the waveform and clicking it
// seeks there. Screenshots at both widths are kept as artifacts.
func TestBrowserVoiceMemo(t *testing.T) {
	tone, err := filepath.Abs(filepath.Join("..", "media", "audio", "testdata", "tone.wav"))
	if err != nil {
		t.Fatal(err)
	}
	media := []chromedp.ExecAllocatorOption{
		chromedp.Flag("use-fake-ui-for-media-stream", true), chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-audio-capture", tone), chromedp.Flag("autoplay-policy", "no-user-gesture-required"),
	}
	ann := apptest.BrowserWith(t, 1200, 900, media...)
	bob := apptest.BrowserWith(t, 390, 844, media[3])
	m := apptest.One(t)
	base := m.URL()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	eval := func(ctx context.Context, js string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		must(err)
		return s
	}
	until := func(ctx context.Context, js, what string) string {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second)
		for {
			s, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
			if err == nil && s != "" {
				return s
			}
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s (%v)", what, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	for ctx, name := range map[context.Context]string{ann: "ann", bob: "bob"} {
		must(chromedp.Do(ctx, apptest.SignUp(base, name, name+"@example.com", "password-"+name)))
	}
	must(chromedp.Do(ann, chromedp.Navigate(base+"/music/u/bob")))
	must(befriendIn(base, ann, "ann", bob, "bob"))

	// Ann records two seconds, listens back, and posts it for her friends.
	must(chromedp.Do(ann,
		chromedp.Navigate(base+"/music/"),
		chromedp.Click(`#share-audio summary`),
		chromedp.WaitVisible(`.recorder .rec-start`),
	))
	apptest.Screenshot(t, ann, "music-audio-form-desktop")
	must(chromedp.Do(ann, chromedp.Click(`.recorder .rec-start`), chromedp.WaitVisible(`.recorder .rec-stop`)))
	until(ann, `(() => { const s = document.querySelector(".rec-time").textContent; return s >= "0:02" ? s : ""; })()`, "two seconds recorded")
	apptest.Screenshot(t, ann, "music-audio-recording-desktop")
	must(chromedp.Do(ann, chromedp.Click(`.recorder .rec-stop`), chromedp.WaitVisible(`.recorder .rec-listen`)))
	name := until(ann, `(() => { const f = document.querySelector("#audio").files; return f.length ? f[0].name + " " + f[0].type : ""; })()`, "the recording in the form")
	if !strings.HasPrefix(name, "voice-memo.webm audio/webm") {
		t.Errorf("the recording is %q; want a WebM voice memo", name)
	}
	until(ann, `document.querySelector("input[name=duration_ms]").value`, "the recording measured")
	apptest.Screenshot(t, ann, "music-audio-recorded-desktop")
	must(chromedp.Do(ann,
		chromedp.SendKeys(`#audio-comment`, "A voice memo from the rehearsal #memo"),
		chromedp.Click(`form[data-audio-form] input[name=visibility][value=friends]`),
		chromedp.Click(`form[data-audio-form] button[type=submit]`),
		chromedp.WaitVisible(`.audio`),
	))
	loc := eval(ann, `location.pathname`)
	id := regexp.MustCompile(`^/music/p/(\d+)$`).FindStringSubmatch(loc)
	if id == nil {
		t.Fatalf("after posting, ann is at %s; want the post", loc)
	}
	apptest.SettleMedia(t, m)
	// The page comes again by itself once the memo is processed.
	must(chromedp.Do(ann, chromedp.WaitNotPresent(`.processing`), chromedp.WaitVisible(`svg.wave`)))
	wave := eval(ann, `document.querySelector("svg.wave defs path").getAttribute("d")`)
	if strings.Count(wave, "M") != 200 || !regexp.MustCompile(`h\.7v([3-9]\d)h`).MatchString(wave) {
		t.Fatalf("the waveform has no loud bars: %.300s", wave)
	}
	apptest.Screenshot(t, ann, "music-audio-post-desktop")

	must(chromedp.Do(bob, chromedp.Navigate(base+"/music/"), chromedp.Click(`#share-audio summary`), chromedp.WaitVisible(`.recorder .rec-start`)))
	apptest.Screenshot(t, bob, "music-audio-form-phone")

	// Bob plays it from the middle by clicking the waveform.
	post := "/music/p/" + id[1]
	must(chromedp.Do(bob, chromedp.Navigate(base+post), chromedp.WaitVisible(`svg.wave`)))
	must(chromedp.Do(bob, chromedp.Click(`svg.wave`)))
	until(bob, `(() => { const a = document.querySelector(".audio audio"); return a.currentTime > 0 ? String(a.currentTime) : ""; })()`, "the player to play")
	until(bob, `(() => { const w = Number(document.querySelector(".played-clip").getAttribute("width")); return w > 0 ? String(w) : ""; })()`, "the played part to show")
	until(bob, `document.querySelector(".plays").textContent === "1 play" ? "1" : ""`, "the listen counted")
	// Seeking again is the same listen.
	must(chromedp.Do(bob, chromedp.Click(`svg.wave`)))
	var plays int64
	deadline := time.Now().Add(10 * time.Second)
	for plays != 1 && time.Now().Before(deadline) {
		must(m.DB.QueryRow(context.Background(), "SELECT plays FROM music_posts WHERE id = ?", id[1]).Scan(&plays))
		time.Sleep(50 * time.Millisecond)
	}
	if plays != 1 {
		t.Fatalf("plays = %d; want 1 (a seek is not a listen)", plays)
	}
	// The comment's moment follows the player; Bob pins his at 0:01.
	eval(bob, `(() => { const a = document.querySelector(".audio audio"); a.pause(); a.currentTime = 1.2; return ""; })()`)
	at := until(bob, `document.querySelector("input.at-input").value`, "the moment filled in")
	if at != "0:01" {
		t.Errorf("the comment's moment is %q; want the player's 0:01", at)
	}
	must(chromedp.Do(bob,
		chromedp.SendKeys(`.post .comment-form input[name=body]`, "Love this bit"),
		chromedp.Submit(`.post .comment-form input[name=body]`),
		chromedp.WaitVisible(`svg.wave a.tick`),
	))
	title := eval(bob, `document.querySelector("svg.wave a.tick title").textContent`)
	if !strings.Contains(title, "0:01") || !strings.Contains(title, "Love this bit") {
		t.Errorf("the tick's title is %q; want the moment and the comment", title)
	}
	if s := eval(bob, `document.querySelector(".all-comments .comment a.at").textContent`); s != "at 0:01" {
		t.Errorf("the comment shows %q; want at 0:01", s)
	}
	apptest.Screenshot(t, bob, "music-audio-post-phone")
	// Clicking the tick seeks there.
	eval(bob, `(() => { const a = document.querySelector(".audio audio"); a.pause(); a.currentTime = 0; return ""; })()`)
	must(chromedp.Do(bob, chromedp.Click(`svg.wave a.tick rect`)))
	got := until(bob, `(() => { const t = document.querySelector(".audio audio").currentTime; return t >= 0.95 ? String(t) : ""; })()`, "the seek to the tick")
	if f, _ := strconv.ParseFloat(got, 64); f > 2 {
		t.Errorf("the tick sought to %s s; want about 1", got)
	}
	for _, p := range []string{"audio", ""} {
		must(chromedp.Do(ann, chromedp.Navigate(base+"/music/"+p), chromedp.WaitVisible(`.music-main`)))
		apptest.Screenshot(t, ann, "music-audio-"+p+"timeline-desktop")
		must(chromedp.Do(bob, chromedp.Navigate(base+"/music/"+p), chromedp.WaitVisible(`.music-main`)))
		apptest.Screenshot(t, bob, "music-audio-"+p+"timeline-phone")
	}
}
