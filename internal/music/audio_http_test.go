package music_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// audioForm is the share form with an audio file (name, content) and
// fields, as a browser sends it.
func audioForm(name string, content []byte, fields map[string]string) (*bytes.Buffer, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("kind", "audio")
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if name != "" {
		fw, _ := mw.CreateFormFile("audio", name)
		fw.Write(content)
	}
	mw.Close()
	return &buf, mw.FormDataContentType()
}

// upload posts an audio; it returns the response and its body.
func (p *person) upload(name string, content []byte, fields map[string]string, hdr http.Header) (*http.Response, string) {
	p.t.Helper()
	body, ctype := audioForm(name, content, fields)
	h := http.Header{"Content-Type": {ctype}}
	for k, v := range hdr {
		h[k] = v
	}
	return p.Do(http.MethodPost, "/music/posts", body, h)
}

// shareAudio uploads testdata file name and returns the new post's id.
func (p *person) shareAudio(name, comment, vis string) string {
	p.t.Helper()
	res, body := p.upload(name, fixture(p.t, name), map[string]string{"comment": comment, "visibility": vis}, nil)
	loc := apptest.WantRedirect(p.t, res, body)
	m := regexp.MustCompile(`^/music/p/(\d+)$`).FindStringSubmatch(loc)
	if m == nil {
		p.t.Fatalf("an audio's form went to %q; want its post", loc)
	}
	return m[1]
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "media", "audio", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func count(t testing.TB, m *app.Main, table string) int64 {
	t.Helper()
	var n int64
	if err := m.DB.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var flatWave = `d="M0 49h200v2H0z"`

// TestAudioUploadFormats: every accepted format is posted, shown to its
// author only while processing, then to all with its waveform and length.
func TestAudioUploadFormats(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, cat := signUp(t, m, "ann"), signUp(t, m, "bob"), signUp(t, m, "cat")
		for i, name := range []string{"tone-cbr.mp3", "tone-vbr.mp3", "tone-id3.mp3", "tone.ogg", "tone.opus", "tone.webm",
			"chromium.webm", "tone.m4a", "tone-frag.m4a", "tone.flac", "tone-stereo.flac", "tone.wav", "tone-float.wav"} {
			t.Run(name, func(t *testing.T) {
				by := []*person{ann, cat}[i%2] // 7 each: within the posting limit's burst
				id := by.shareAudio(name, "my take on "+name+" #tone", "public")
				apptest.SettleMedia(t, m)
				res, page := bob.Get("/music/p/" + id)
				apptest.WantStatus(t, res, page, 200)
				if strings.Contains(page, "Processing") || strings.Contains(page, flatWave) || !strings.Contains(page, `class="bars"`) {
					t.Fatalf("the post has no waveform once processed:\n%.3000s", page)
				}
				if !strings.Contains(page, `<span class="dur">0:02</span>`) || !strings.Contains(page, `data-duration="25`) {
					t.Errorf("the post does not show its 2.5 s duration")
				}
				res, b := bob.Get("/music/p/" + id + "/audio")
				apptest.WantStatus(t, res, b, 200)
				if !bytes.Equal([]byte(b), fixture(t, name)) {
					t.Errorf("the audio served is not the file uploaded (%d bytes; want %d)", len(b), len(fixture(t, name)))
				}
			})
		}
		_, page := bob.Get("/music/audio")
		if n := strings.Count(page, `<div class="audio"`); n != 13 {
			t.Errorf("the audio timeline shows %d audios; want 13", n)
		}
		// A JSON client gets 201 and the new post's id.
		res, body := ann.upload("tone.wav", fixture(t, "tone.wav"), map[string]string{"comment": "json"}, http.Header{"Accept": {"application/json"}})
		apptest.WantStatus(t, res, body, http.StatusCreated)
		if !regexp.MustCompile(`^\{"id":\d+,`).MatchString(body) || !strings.Contains(body, `"ready":false`) {
			t.Errorf("JSON answer %s; want the new post's id", body)
		}
	})
}

// wavOf is a WAV of 8-bit mono PCM at 8 kHz lasting seconds.
func wavOf(seconds int) []byte {
	n := 8000 * seconds
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(36+n))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(8000), uint32(8000), uint16(1), uint16(8)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(n))
	for i := range n {
		b.WriteByte(byte(128 + 60*((i/20)%2)))
	}
	return b.Bytes()
}

// TestAudioUploadRefusesHostileFiles: each bad file gets a 4xx with its
// message beside the field, what was typed kept, and nothing stored.
func TestAudioUploadRefusesHostileFiles(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann := signUp(t, m, "ann")
		wav := fixture(t, "tone.wav")
		claims10h := append([]byte(nil), wav...)
		binary.LittleEndian.PutUint32(claims10h[40:], 8000*2*36000) // the data chunk says 10 hours
		for _, c := range []struct {
			name, file string
			content    []byte
			want       string
		}{
			{"empty", "empty.mp3", nil, "This file is empty"},
			{"raw AAC", "tone.aac", fixture(t, "tone.aac"), "save it as .m4a"},
			{"3GP", "tone.3gp", fixture(t, "tone.3gp"), ".3gp phone recordings are not supported"},
			{"AMR", "memo.amr", append([]byte("#!AMR\n"), make([]byte, 600)...), ".3gp phone recordings are not supported"},
			{"text", "notes.mp3", []byte("just some text, not audio at all"), "not an audio file"},
			{"video", "video.mp4", fixture(t, "video.mp4"), "holds video"},
			{"video webm", "video.webm", fixture(t, "video.webm"), "holds video"},
			{"truncated", "cut.wav", wav[:len(wav)/2], "damaged or cut short"},
			{"claims 10 hours", "long.wav", claims10h, "damaged or cut short"},
			{"too long", "long.wav", wavOf(16 * 60), "the limit is 15:00"},
			{"polyglot", "page.mp3", append([]byte("<html><script>alert(1)</script>"), fixture(t, "tone-cbr.mp3")...), "not an audio file"},
			{"a picture", "cover.mp3", fixture(t, "cover.jpg"), "not an audio file"},
			{"no file", "", nil, "Choose an audio file"},
		} {
			t.Run(c.name, func(t *testing.T) {
				res, body := ann.upload(c.file, c.content, map[string]string{"comment": "typed <b>this</b>", "visibility": "friends"}, nil)
				apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
				if !strings.Contains(body, c.want) || !strings.Contains(body, `id="audio-error"`) || !strings.Contains(body, "typed &lt;b&gt;this&lt;/b&gt;") {
					t.Fatalf("no %q beside the field with the text kept:\n%.3000s", c.want, body)
				}
				// A JSON client gets the same as problem details.
				res, body = ann.upload(c.file, c.content, nil, http.Header{"Accept": {"application/json"}})
				if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `"audio"`) {
					t.Fatalf("JSON: %d %s; want 422 naming the field audio", res.StatusCode, body)
				}
			})
		}
		// A file over the size limit (its form read past, up to the
		// route's limit) is refused beside the field too.
		big := append(append([]byte(nil), wav[:44]...), make([]byte, 51<<20)...)
		res, body := ann.upload("big.wav", big, map[string]string{"comment": "huge"}, nil)
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "larger than 50 MB") {
			t.Fatalf("a 51 MB file: no message at the field:\n%.2000s", body)
		}
		// A body announcing 1 GB is refused before it is read.
		conn, err := net.Dial("tcp", strings.TrimPrefix(m.URL(), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /music/posts HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: %d\r\n\r\n", 1<<30)
		res, err = http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil || res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("a body announcing 1 GB: %v %v; want 413", res, err)
		}
		if n, f := count(t, m, "music_posts"), count(t, m, "media_files"); n != 0 || f != 0 {
			t.Fatalf("%d posts and %d files stored; want none", n, f)
		}
	})
}

// TestPrivacyByRouteAudio: a friends-only audio's file, waveform, listens
// and timed comments reach its author and their friend by every route,
// and a stranger and a visitor by none (a guessed URL of the file is a
// 404 too). The file is served with ranges and revalidation, privately.
func TestPrivacyByRouteAudio(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob, cat := signUp(t, m, "ann"), signUp(t, m, "bob"), signUp(t, m, "cat")
		vis := visitorOf(t, m)
		befriend(t, ann, bob)
		pub := ann.shareAudio("tone.ogg", "open memo #memo", "public")
		priv := ann.shareAudio("tone.flac", "whispered memo #memo #hushhush", "friends")
		apptest.SettleMedia(t, m)
		res, body := bob.Post("/music/p/"+priv+"/comments", url.Values{"body": {"secret moment"}, "at": {"0:01"}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		res, body = bob.Post("/music/p/"+priv+"/play", nil)
		apptest.WantStatus(t, res, body, http.StatusNoContent)
		for _, path := range []string{"/music/", "/music/audio", "/music/tags/memo", "/music/u/ann"} {
			vis.Get(path) // the visitors' pages are cached first
		}
		secret := []string{"whispered memo", "secret moment", `id="p-` + priv + `"`, `/music/p/` + priv + `/audio`, `data-post="` + priv + `"`}
		routes := []string{"/music/", "/music/everyone", "/music/audio", "/music/audio?before=999999999", "/music/tags/memo",
			"/music/tags/hushhush", "/music/u/ann", "/music/hot", "/music/p/" + priv}
		for _, c := range []struct {
			who  *person
			name string
			sees bool
		}{{ann, "author", true}, {bob, "friend", true}, {cat, "stranger", false}, {vis, "visitor", false}} {
			all := c.who.readAll(c.name, routes, "/music/p/"+priv, c.sees, secret)
			if !strings.Contains(all, "open memo") || !strings.Contains(all, `/music/p/`+pub+`/audio`) {
				t.Errorf("%s does not see the public audio", c.name)
			}
			res, body := c.who.Get("/music/p/" + priv + "/audio")
			if want := map[bool]int{true: 200, false: 404}[c.sees]; res.StatusCode != want {
				t.Errorf("%s: GET the file: %d; want %d", c.name, res.StatusCode, want)
			}
			if c.sees && body != string(fixture(t, "tone.flac")) {
				t.Errorf("%s: the file served is not the one uploaded", c.name)
			}
			res, _ = c.who.Post("/music/p/"+priv+"/play", nil)
			if want := map[bool]int{true: 204, false: 404}[c.sees]; res.StatusCode != want {
				t.Errorf("%s: POST play: %d; want %d", c.name, res.StatusCode, want)
			}
		}
		for _, path := range []string{"/music/p/999999/audio", "/music/p/abc/audio"} {
			if res, _ := bob.Get(path); res.StatusCode != 404 {
				t.Errorf("GET %s: %d; want 404", path, res.StatusCode)
			}
		}
		// A stranger cannot pin a comment either; a moment past the end is
		// refused beside its field.
		res, body = cat.Post("/music/p/"+priv+"/comments", url.Values{"body": {"x"}, "at": {"0:01"}})
		apptest.WantStatus(t, res, body, 404)
		res, body = bob.Post("/music/p/"+priv+"/comments", url.Values{"body": {"too late"}, "at": {"9:59"}})
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "from 0:00 to 0:02") || !strings.Contains(body, `value="too late"`) {
			t.Errorf("a moment past the end: no message at the field:\n%.3000s", body)
		}
		// A listen is counted by POST only.
		if res, _ := bob.Get("/music/p/" + priv + "/play"); res.StatusCode != http.StatusMethodNotAllowed && res.StatusCode != 404 {
			t.Errorf("GET play: %d; want 405 or 404", res.StatusCode)
		}
		var plays int64
		if err := m.DB.QueryRow(context.Background(), "SELECT plays FROM music_posts WHERE id = ?", priv).Scan(&plays); err != nil || plays != 3 {
			t.Errorf("plays = %d (%v); want 3: bob's two and ann's", plays, err)
		}
		// Ranges, revalidation, and private caching for the friend.
		res, part := bob.Do(http.MethodGet, "/music/p/"+priv+"/audio", nil, http.Header{"Range": {"bytes=100-199"}})
		apptest.WantStatus(t, res, part, http.StatusPartialContent)
		whole := string(fixture(t, "tone.flac"))
		if part != whole[100:200] || res.Header.Get("Content-Range") != fmt.Sprintf("bytes 100-199/%d", len(whole)) {
			t.Errorf("range: %d bytes, Content-Range %q", len(part), res.Header.Get("Content-Range"))
		}
		if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "private") || strings.Contains(cc, "public") {
			t.Errorf("Cache-Control %q; want private", cc)
		}
		res, _ = bob.Do(http.MethodGet, "/music/p/"+priv+"/audio", nil, nil)
		if et := res.Header.Get("ETag"); et != "" {
			res, _ = bob.Do(http.MethodGet, "/music/p/"+priv+"/audio", nil, http.Header{"If-None-Match": {et}})
			apptest.WantStatus(t, res, "", http.StatusNotModified)
		} else if lm := res.Header.Get("Last-Modified"); lm != "" {
			res, _ = bob.Do(http.MethodGet, "/music/p/"+priv+"/audio", nil, http.Header{"If-Modified-Since": {lm}})
			apptest.WantStatus(t, res, "", http.StatusNotModified)
		} else {
			t.Error("the file has neither ETag nor Last-Modified")
		}
		res, _ = bob.Do(http.MethodGet, "/music/p/"+priv+"/audio", nil, http.Header{"Range": {"bytes=999999-"}})
		apptest.WantStatus(t, res, "", http.StatusRequestedRangeNotSatisfiable)
		// Deleting the post deletes its file.
		res, body = ann.Post("/music/p/"+priv+"/delete", nil)
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		if res, _ := ann.Get("/music/p/" + priv + "/audio"); res.StatusCode != 404 {
			t.Errorf("the deleted post's file: %d; want 404", res.StatusCode)
		}
		var files int64
		if err := m.DB.QueryRow(context.Background(), "SELECT count(*) FROM media_files WHERE kind = 'music-audio' AND ref = ?", priv).Scan(&files); err != nil || files != 0 {
			t.Errorf("%d files of the deleted post kept (%v); want none", files, err)
		}
		// Deleting the account deletes the files of its audio posts.
		res, body = ann.Post("/account/delete", url.Values{"password": {"password-ann"}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		if err := m.DB.QueryRow(context.Background(), "SELECT count(*) FROM media_files WHERE kind = 'music-audio'").Scan(&files); err != nil || files != 0 {
			t.Errorf("%d files of a deleted account's audio kept (%v); want none", files, err)
		}
	})
}

// TestAudioTimelineStatements: the audio timeline costs the same number
// of statements with 1 audio as with 12 of 4 friends, with comments.
func TestAudioTimelineStatements(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := signUp(t, m, "ann"), signUp(t, m, "bob")
		befriend(t, ann, bob)
		one := bob.shareAudio("tone.wav", "one", "friends")
		apptest.SettleMedia(t, m)
		res, body := ann.Post("/music/p/"+one+"/comments", url.Values{"body": {"first"}})
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		count := ann.statements(m, "/music/audio?before=999999999")
		small := count()
		for i := range 4 {
			f := signUp(t, m, fmt.Sprint("f", i))
			befriend(t, ann, f)
			for j := range 3 {
				id := f.shareAudio("tone.wav", "memo", []string{"public", "friends"}[j%2])
				apptest.SettleMedia(t, m)
				res, body := ann.Post("/music/p/"+id+"/comments", url.Values{"body": {"nice"}, "at": {"0:01"}})
				apptest.WantStatus(t, res, body, http.StatusSeeOther)
			}
		}
		if big := count(); big != small {
			t.Fatalf("audio timeline: %d statements with 1 audio, %d with 13; want the same", small, big)
		}
		t.Logf("the audio timeline costs %d statements", small)
	})
}

// TestDemoAudio: the demo has an audio post with its waveform and two
// comments pinned to its moments, shown on its page as ticks.
func TestDemoAudio(t *testing.T) {
	m := apptest.One(t)
	if err := m.LoadDemo(context.Background()); err != nil {
		t.Fatal(err)
	}
	vis := visitorOf(t, m)
	_, page := vis.Get("/music/audio")
	ids := regexp.MustCompile(`<div class="audio" data-post="(\d+)"`).FindAllStringSubmatch(page, -1)
	if len(ids) != 1 || strings.Contains(page, flatWave) || !strings.Contains(page, "little arpeggio") {
		t.Fatalf("the demo's audio timeline: %d audios; want leo's, with its waveform:\n%.3000s", len(ids), page)
	}
	_, page = vis.Get("/music/p/" + ids[0][1])
	if n := strings.Count(page, `<a class="tick"`); n != 2 || !strings.Contains(page, "at 0:01") || !strings.Contains(page, "at 0:04") {
		t.Fatalf("the demo's audio shows %d ticks; want 2, with their moments in the comments", n)
	}
}

// TestAudioUnreadable: an audio whose container reads well (the upload's
// checks pass) but whose stream the waveform job cannot decode is not
// left "processing": its author sees that it could not be read, with a
// button that deletes it; nobody else sees it; no job is left to retry.
func TestAudioUnreadable(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		ann, bob := signUp(t, m, "ann"), signUp(t, m, "bob")
		befriend(t, ann, bob)
		bad := fixture(t, "tone.flac")
		for i := len(bad) / 8; i < len(bad)/8+len(bad)/2; i++ { // frames scrambled, STREAMINFO and length intact
			bad[i] ^= 0x5a
		}
		res, body := ann.upload("scrambled.flac", bad, map[string]string{"comment": "a scrambled memo", "visibility": "public"}, nil)
		loc := apptest.WantRedirect(t, res, body)
		apptest.SettleMedia(t, m)
		res, page := ann.Get(loc)
		apptest.WantStatus(t, res, page, 200)
		if !strings.Contains(page, "could not read this audio") || strings.Contains(page, "Processing") ||
			!strings.Contains(page, `action="`+loc+`/delete"`) {
			t.Fatalf("the author's post does not say it could not be read, with a delete button:\n%.4000s", page)
		}
		res, body = bob.Get(loc)
		apptest.WantStatus(t, res, body, 404)
		var left int64
		if err := m.DB.QueryRow(context.Background(), "SELECT count(*) FROM jobs WHERE state IN ('ready', 'running')").Scan(&left); err != nil || left != 0 {
			t.Errorf("%d jobs left to run (%v); want none", left, err)
		}
		res, body = ann.Post(loc+"/delete", nil)
		apptest.WantStatus(t, res, body, http.StatusSeeOther)
		if n := count(t, m, "music_posts"); n != 0 {
			t.Errorf("%d posts after deleting; want 0", n)
		}
	})
}

// TestAudioRangeStatements: a listener's Range request costs one
// statement (the post, with whether they may see it): the file's row is
// read once, then kept by id (media.Service.Get, the object cache). A
// count of one process with its caches warm: in the cluster, nginx sends
// each request to either instance, each with caches of its own.
func TestAudioRangeStatements(t *testing.T) {
	apptest.EachInstance(t, func(t *testing.T, m *app.Main) {
		ann, bob := signUp(t, m, "ann"), signUp(t, m, "bob")
		befriend(t, ann, bob)
		priv := ann.shareAudio("tone.wav", "for friends", "friends")
		pub := ann.shareAudio("tone.wav", "for all", "public")
		apptest.SettleMedia(t, m)
		for _, c := range []struct {
			who  *person
			name string
			id   string
		}{{bob, "a friend", priv}, {visitorOf(t, m), "a visitor", pub}} {
			// What being signed in costs a request (nothing where the
			// session and user come from memory, as on SQLite; their reads
			// on PostgreSQL), counted on the landing page, which reads
			// nothing else: a range costs that and one statement.
			c.who.Get("/")
			q0 := apptest.Queries(m)
			c.who.Get("/")
			signedIn := apptest.Queries(m) - q0
			for i := range 3 {
				q0 := apptest.Queries(m)
				res, part := c.who.Do(http.MethodGet, "/music/p/"+c.id+"/audio", nil, http.Header{"Range": {fmt.Sprintf("bytes=%d-%d", 100*i, 100*i+99)}})
				apptest.WantStatus(t, res, part, http.StatusPartialContent)
				if n := apptest.Queries(m) - q0 - signedIn; i > 0 && n != 1 {
					t.Errorf("%s's range request %d cost %d statements besides the session's %d; want 1", c.name, i+1, n, signedIn)
				}
			}
		}
	})
}
