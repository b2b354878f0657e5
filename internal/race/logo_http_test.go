package race_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// picture is a w x h PNG.
func picture(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 90, uint8(128 + x%128)})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bomb is a small PNG whose header claims 30,000 x 30,000 pixels.
func bomb() []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 30000)
	binary.BigEndian.PutUint32(ihdr[4:], 30000)
	ihdr[8], ihdr[9] = 8, 6 // 8-bit RGBA
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(13))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

func (p *person) uploadLogo(path, name string, content []byte) (*http.Response, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("logo", name)
	fw.Write(content)
	mw.Close()
	return p.Do("POST", path, &buf, http.Header{"Content-Type": {mw.FormDataContentType()}})
}

var logoSrc = regexp.MustCompile(`<img class="race-logo" src="([^"]+)"`)

// A director uploads the race's logo: checked by its content (a text file
// named .png and a decompression bomb are refused), fitted into 256 x 256
// as PNG, shown on the race page and served by every instance; replaced,
// the old file goes; removed, the page has none. Only directors may.
func TestLogoUpload(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "5")
		logo := "/race/r/" + slug + "/admin/logo"
		rita := signedIn(t, m, "rita")
		res, body := rita.uploadLogo(logo, "x.png", picture(t, 10, 10))
		apptest.WantStatus(t, res, body, http.StatusForbidden)
		res, body = dir.uploadLogo(logo, "logo.png", []byte("not a picture at all, only text"))
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		res, body = dir.uploadLogo(logo, "bomb.png", bomb())
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "too large to process") {
			t.Errorf("a decompression bomb: %.1500s", body)
		}
		res, body = dir.uploadLogo(logo, "logo.png", picture(t, 600, 300))
		apptest.WantRedirect(t, res, body)
		apptest.SettleMedia(t, m) // the logo is made by a job
		_, page := rita.Get("/race/r/" + slug)
		src := logoSrc.FindStringSubmatch(page)
		if src == nil {
			t.Fatalf("race page without the logo: %.1500s", page)
		}
		res, body = rita.Get(src[1])
		apptest.WantStatus(t, res, body, http.StatusOK)
		img, err := png.Decode(strings.NewReader(body))
		if err != nil || img.Bounds().Dx() != 256 || img.Bounds().Dy() != 128 {
			t.Fatalf("stored logo: %v, %v; want 256 x 128", img.Bounds(), err)
		}
		// Replaced: the old file goes.
		res, body = dir.uploadLogo(logo, "small.png", picture(t, 40, 20))
		apptest.WantRedirect(t, res, body)
		apptest.SettleMedia(t, m)
		res, body = rita.Get(src[1])
		apptest.WantStatus(t, res, body, http.StatusNotFound)
		_, page = rita.Get("/race/r/" + slug)
		src2 := logoSrc.FindStringSubmatch(page)
		if src2 == nil || src2[1] == src[1] {
			t.Fatalf("race page after replacing the logo: %v", src2)
		}
		res, body = rita.Get(src2[1])
		if img, err := png.Decode(strings.NewReader(body)); err != nil || img.Bounds().Dx() != 40 {
			t.Errorf("a small logo is not enlarged: %v %v", img, err)
		}
		res, body = dir.Post(logo, map[string][]string{"remove": {"1"}})
		apptest.WantRedirect(t, res, body)
		if _, page = rita.Get("/race/r/" + slug); logoSrc.MatchString(page) {
			t.Errorf("race page still shows a removed logo")
		}
	})
}
