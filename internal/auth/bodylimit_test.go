package auth_test

import (
	"bytes"
	"image"
	"image/png"
	"math/rand/v2"
	"net/http"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

// The settings form takes a picture larger than the server's default body
// limit (1 MiB): its route carries its own limit (web.MaxBody).
func TestAvatarLargerThanDefaultBodyLimit(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		b := newBrowser(t, m)
		b.signup("erin", "erin@example.com", "password1")
		img := image.NewNRGBA(image.Rect(0, 0, 800, 600))
		rng := rand.New(rand.NewPCG(1, 2))
		for i := range img.Pix {
			img.Pix[i] = byte(rng.Uint32())
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		if buf.Len() <= int(m.Config.MaxBodyBytes) {
			t.Fatalf("picture of %d bytes; want more than the default limit %d", buf.Len(), m.Config.MaxBodyBytes)
		}
		res, body := b.upload(map[string]string{"display_name": "Erin"}, "big.png", buf.Bytes())
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("upload of %d bytes: %d; want 303\n%s", buf.Len(), res.StatusCode, body)
		}
	})
}
