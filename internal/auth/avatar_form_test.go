package auth_test

import (
	"bytes"
	"context"
	"html"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/files"
)

// A phone's photo over the 20 MB picture limit gets the settings form back
// (not a bare 413 page): the message beside the picture field, the name
// and bio typed kept (whether the browser sent them before or after the
// file), nothing saved. The page prints the limit by the field and carries
// it for forms.js.
func TestAvatarOverTheLimitKeepsTheForm(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		b := newBrowser(t, m)
		b.signup("erin", "erin@example.com", "password1")
		res, page := b.get("/account/settings")
		wantStatus(t, res, page, http.StatusOK)
		for _, want := range []string{"up to 20 MB", `data-max-bytes="20971520"`, "/static/forms."} {
			if !strings.Contains(page, want) {
				t.Errorf("settings page lacks %q", want)
			}
		}
		big := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, files.MaxImageBytes)...)
		for _, fileFirst := range []bool{false, true} {
			var buf bytes.Buffer
			mw := multipart.NewWriter(&buf)
			file := func() { fw, _ := mw.CreateFormFile("avatar", "phone.png"); fw.Write(big) }
			if fileFirst {
				file()
			}
			mw.WriteField("display_name", "Erin Photo")
			mw.WriteField("bio", "Plays the tuba.")
			if !fileFirst {
				file()
			}
			mw.Close()
			res, body := b.do("POST", "/account/settings", &buf, http.Header{"Content-Type": {mw.FormDataContentType()}})
			wantStatus(t, res, body, http.StatusUnprocessableEntity)
			if !strings.Contains(body, `id="avatar-error"`) || !strings.Contains(body, html.EscapeString(files.TooLargeMessage)) {
				t.Errorf("file first %v: no message beside the picture: %.3000s", fileFirst, body)
			}
			if !strings.Contains(body, `value="Erin Photo"`) || !strings.Contains(body, "Plays the tuba.") {
				t.Errorf("file first %v: the name and bio typed are lost: %.3000s", fileFirst, body)
			}
			u, _ := m.Auth.ByUsername(context.Background(), "erin")
			if u.DisplayName != "" || u.AvatarURL() != "" {
				t.Errorf("after a refused save: %+v; want nothing saved", u)
			}
		}
		// A body that is not a form is refused, not read as an empty one
		// that would save an empty name and bio over the ones kept.
		if res, body := b.do("POST", "/account/settings", strings.NewReader("display_name=Erin"),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("a plain save: %d %.300s", res.StatusCode, body)
		}
		res, body := b.do("POST", "/account/settings", bytes.NewReader(make([]byte, 1<<10)),
			http.Header{"Content-Type": {"application/octet-stream"}})
		wantStatus(t, res, body, http.StatusBadRequest)
		if u, _ := m.Auth.ByUsername(context.Background(), "erin"); u.DisplayName != "Erin" {
			t.Errorf("after a body that is not a form: name %q; want Erin kept", u.DisplayName)
		}
	})
}
