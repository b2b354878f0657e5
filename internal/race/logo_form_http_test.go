package race_test

import (
	"bytes"
	"html"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/files"
)

// noisyPNG is a w x h PNG of noise: it barely compresses (about 4 bytes a
// pixel), as a phone's photo barely does.
func noisyPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.Uint32())
	}
	img.Set(0, 0, color.NRGBA{1, 2, 3, 255})
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// postMultipart posts fields (in order) and, if file is not nil, the
// picture as field "logo".
func (p *person) postMultipart(path string, fields [][2]string, file []byte) (*http.Response, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range fields {
		mw.WriteField(f[0], f[1])
	}
	if file != nil {
		fw, _ := mw.CreateFormFile("logo", "photo.png")
		fw.Write(file)
	}
	mw.Close()
	return p.Do("POST", path, &buf, http.Header{"Content-Type": {mw.FormDataContentType()}})
}

// A phone's photo as a logo: one of some 9 MB (over the old 5 MB limit) is
// taken and fitted into 256 x 256; one over 20 MB gets the basics page
// back with the message beside the field, not a bare 413 page.
func TestLogoPhoneSizedPhoto(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		slug := publishRace(t, dir, "5")
		logo := "/race/r/" + slug + "/admin/logo"
		big := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, files.MaxImageBytes)...)
		res, body := dir.uploadLogo(logo, "phone.png", big)
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, `id="logo-error"`) || !strings.Contains(body, html.EscapeString(files.TooLargeMessage)) {
			t.Errorf("a logo over 20 MB: %.3000s", body)
		}
		if !strings.Contains(body, "up to 20 MB") || !strings.Contains(body, `data-max-bytes="20971520"`) {
			t.Errorf("the basics page does not print the limit by the field: %.3000s", body)
		}
		photo := noisyPNG(t, 1500, 1500)
		if len(photo) < 6<<20 || len(photo) > files.MaxImageBytes {
			t.Fatalf("photo of %d bytes; want between 6 and 20 MB", len(photo))
		}
		res, body = dir.uploadLogo(logo, "photo.png", photo)
		apptest.WantRedirect(t, res, body)
		apptest.SettleMedia(t, m) // the logo is made by a job
		_, page := dir.Get("/race/r/" + slug + "/admin/basics")
		src := logoSrc.FindStringSubmatch(page)
		if src == nil {
			t.Fatalf("no logo after the upload: %.3000s", page)
		}
		res, img := dir.Get(src[1])
		apptest.WantStatus(t, res, img, http.StatusOK)
		cfg, err := png.DecodeConfig(strings.NewReader(img))
		if err != nil || cfg.Width != 256 || cfg.Height != 256 {
			t.Errorf("stored logo %dx%d (%v); want 256x256", cfg.Width, cfg.Height, err)
		}
	})
}

// The logo can be given in the wizard's first step, with the basics: a
// good one is the new race's logo; a refused one (over 20 MB) keeps every
// field typed and says so by the field, nothing created; a good one with
// a refused field is asked for again (a returned form cannot keep a file).
func TestNewRaceWithLogo(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		dir := signedIn(t, m, "dora")
		_, page := dir.Get("/race/new")
		if !strings.Contains(page, `enctype="multipart/form-data"`) || !strings.Contains(page, `id="logo"`) {
			t.Fatalf("the first step has no logo field: %.3000s", page)
		}
		day := time.Now().AddDate(0, 2, 0).Format(time.DateOnly)
		basics := [][2]string{{"name", "Quay Mile"}, {"location", "The quay"}, {"date", day}, {"tz", "Europe/Paris"},
			{"currency", "eur"}, {"description", "One fast mile."}}
		big := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, files.MaxImageBytes)...)
		res, body := dir.postMultipart("/race/races", basics, big)
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, html.EscapeString(files.TooLargeMessage)) {
			t.Errorf("a logo over 20 MB: %.3000s", body)
		}
		for _, want := range []string{`value="Quay Mile"`, `value="The quay"`, `value="` + day + `"`, "One fast mile.", `<option value="Europe/Paris" selected`} {
			if !strings.Contains(body, want) {
				t.Errorf("the refused form lacks %q", want)
			}
		}
		_, mine := dir.Get("/race/mine")
		if strings.Contains(mine, "Quay Mile") {
			t.Errorf("a race was created with a refused logo")
		}
		noName := append([][2]string{{"name", ""}}, basics[1:]...)
		res, body = dir.postMultipart("/race/races", noName, picture(t, 300, 200))
		apptest.WantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "choose it again") || !strings.Contains(body, `value="The quay"`) {
			t.Errorf("a good logo with a refused name: %.3000s", body)
		}
		res, body = dir.postMultipart("/race/races", basics, picture(t, 300, 200))
		path := apptest.WantRedirect(t, res, body)
		apptest.SettleMedia(t, m) // the logo is made by a job
		_, review := dir.Get(strings.TrimSuffix(path, "/events"))
		if !logoSrc.MatchString(review) {
			t.Errorf("the new race has no logo on its review: %.4000s", review)
		}
	})
}

// In a browser, a picture over the limit is told beside the field as soon
// as it is chosen, and the form is not sent.
func TestBrowserPictureSizeCheckedBeforeSending(t *testing.T) {
	b := apptest.Browser(t, 390, 844)
	m := apptest.One(t)
	m.Auth.SetLimits(noLimits)
	base := m.URL()
	big := filepath.Join(t.TempDir(), "phone.png")
	if err := os.WriteFile(big, append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, files.MaxImageBytes)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(b,
		apptest.SignUp(base, "dora", "dora@example.com", "password-dora"),
		chromedp.Navigate(base+"/race/new"),
		chromedp.WaitVisible(`#name`),
		chromedp.SendKeys(`#name`, "Quay Mile"),
		chromedp.SendKeys(`#location`, "North Quay"),
		chromedp.SetUploadFiles(`#logo`, []string{big}),
		chromedp.WaitVisible(`#logo-size-error`),
	); err != nil {
		t.Fatal(err)
	}
	msg, err := chromedp.Run(b, chromedp.Text(`#logo-size-error`))
	if err != nil || msg != files.TooLargeMessage {
		t.Errorf("message by the field: %q (%v); want %q", msg, err, files.TooLargeMessage)
	}
	apptest.Screenshot(t, b, "race-new-logo-too-large-phone")
	// The rest of the form is valid (the date set as a picker sets it), so
	// that only the size check can keep it from being sent; a submit
	// listener added after the page's own hears the submit once that check
	// has run on it: cancelled, the browser sends nothing.
	if _, err := chromedp.Run(b, chromedp.Evaluate[bool](`(document.querySelector("#date").value = "2027-05-01") &&
		document.querySelector('form[action="/race/races"]').addEventListener("submit",
		(e) => { window.submitHeard = e.defaultPrevented ? "cancelled" : "sent"; }) === undefined`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(b, chromedp.Click(`form[action="/race/races"] button[type=submit]`)); err != nil {
		t.Fatal(err)
	}
	heard, err := chromedp.Run(b, chromedp.Poll[string](`window.submitHeard`, chromedp.WithPollingTimeout(10*time.Second)))
	if err != nil || heard != "cancelled" {
		t.Fatalf("the submit with a picture too large was %q (%v); want it cancelled, the form unsent", heard, err)
	}
	loc, err := chromedp.Run(b, chromedp.Evaluate[string](`location.pathname + "|" + document.querySelector("#name").value + "|" +
		document.querySelector("#location").value + "|" + document.querySelector("#date").value`))
	if err != nil || loc != "/race/new|Quay Mile|North Quay|2027-05-01" {
		t.Fatalf("after submitting with a picture too large: %q (%v); want the form as it was", loc, err)
	}
}
