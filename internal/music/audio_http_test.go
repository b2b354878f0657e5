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
		ann, bob := signUp(t, m, "ann"), signUp(t, m, "bob")
		for _, name := range []string{"tone-cbr.mp3", "tone-vbr.mp3", "tone-id3.mp3", "tone.ogg", "tone.opus", "tone.webm",
			"chromium.webm", "tone.m4a", "tone-frag.m4a", "tone.flac", "tone-stereo.flac", "tone.wav", "tone-float.wav"} {
			t.Run(name, func(t *testing.T) {
				id := ann.shareAudio(name, "my take on "+name+" #tone", "public")
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
			{"raw AAC", "tone.aac", fixture(t, "tone.aac"), "not an audio file"},
			{"3GP", "tone.3gp", fixture(t, "tone.3gp"), "not an audio file"},
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
