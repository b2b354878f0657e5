package auth_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
)

// png16 is a PNG of w x h black pixels at 16 bits per channel, RGBA (colour
// type 6), written by hand row by row so that making it allocates nothing
// near its decoded size (w*h*8 bytes).
func png16(w, h int) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		crc := crc32.NewIEEE()
		crc.Write([]byte(kind))
		crc.Write(data)
		out.WriteString(kind)
		out.Write(data)
		binary.Write(&out, binary.BigEndian, crc.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 16, 6 // bit depth, colour type RGBA
	chunk("IHDR", ihdr)
	var idat bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	row := make([]byte, 1+w*8) // filter type 0, then the pixels
	for range h {
		zw.Write(row)
	}
	zw.Close()
	chunk("IDAT", idat.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

var bomb = sync.OnceValue(func() []byte { return png16(7000, 7000) })

// TestAvatarJudgedByDecodedBytes: a 16-bit RGBA PNG of 7000 x 7000 (under
// 400 KB, 392 MB once decoded) is refused from its header, before decoding:
// the process allocates about the file's size, and the budget is untouched.
func TestAvatarJudgedByDecodedBytes(t *testing.T) {
	b := bomb()
	if len(b) > 500<<10 {
		t.Fatalf("bomb is %d bytes; want a small file", len(b))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.ColorModel != color.NRGBA64Model || cfg.Width != 7000 {
		t.Fatalf("bomb header: %+v %v; want 7000 x 7000 NRGBA64", cfg, err)
	}
	if got := files.DecodedBytes(cfg); got != 7000*7000*8 {
		t.Fatalf("DecodedBytes %d; want %d", got, 7000*7000*8)
	}
	budget := files.NewImageBudget(files.DefaultImageBudget)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = auth.ProcessAvatar(context.Background(), budget, bytes.NewReader(b))
	runtime.ReadMemStats(&after)
	e := errs.As(err)
	if e.Kind != errs.Invalid || !strings.Contains(e.Fields["avatar"], "too large to process") {
		t.Fatalf("bomb: %v (fields %v); want the avatar field's \"too large to process\"", err, e.Fields)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("refusing the bomb allocated %d MB; want under 16 MB (it must not be decoded)", alloc>>20)
	}
	if p := budget.Peak(); p != 0 {
		t.Errorf("budget peak %d; want 0 (nothing decoded)", p)
	}

	// 16 bits a channel is fine when it fits: 1000 x 1000 is 8 MB decoded.
	if _, err := auth.ProcessAvatar(context.Background(), budget, bytes.NewReader(png16(1000, 1000))); err != nil {
		t.Fatalf("16-bit 1000 x 1000: %v; want accepted", err)
	}
	// 8-bit RGBA 4096 x 4096 (64 MiB) is the largest; one more row is not.
	over := image.Config{ColorModel: color.RGBAModel, Width: 4096, Height: 4097}
	if files.DecodedBytes(over) <= files.MaxDecodedBytes || files.DecodedBytes(image.Config{ColorModel: color.RGBAModel, Width: 4096, Height: 4096}) > files.MaxDecodedBytes {
		t.Error("the cap is not 4096 x 4096 RGBA at 8 bits")
	}
}

// TestAvatarUploadsShareOneBudget: concurrent acceptable uploads all succeed,
// and what they hold at once never exceeds the budget (sized here for two).
func TestAvatarUploadsShareOneBudget(t *testing.T) {
	pic := pngBytes(t, 600, 400)
	cfg, err := png.DecodeConfig(bytes.NewReader(pic))
	if err != nil {
		t.Fatal(err)
	}
	cost := files.ProcessBytes(cfg)
	budget := files.NewImageBudget(2*cost + cost/2)
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			_, err := auth.ProcessAvatar(context.Background(), budget, bytes.NewReader(pic))
			errc <- err
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Errorf("upload: %v; want accepted", err)
		}
	}
	if p := budget.Peak(); p > budget.Size() || p < cost {
		t.Errorf("budget peak %d; want between %d (one picture) and the budget %d", p, cost, budget.Size())
	}
	// A picture larger than the whole budget is refused, not waited for.
	_, err = auth.ProcessAvatar(context.Background(), files.NewImageBudget(cost-1), bytes.NewReader(pic))
	if e := errs.As(err); e.Kind != errs.Invalid || e.Fields["avatar"] == "" {
		t.Errorf("over the whole budget: %v; want the avatar field refused", err)
	}
}

// TestAvatarBombUploadRefused: the settings form answers the bomb with the
// form again (422) and the message, and keeps the profile as it was.
func TestAvatarBombUploadRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		b := newBrowser(t, m)
		b.signup("gus", "gus@example.com", "password1")
		res, body := b.upload(map[string]string{"display_name": "Gus"}, "bomb.png", bomb())
		wantStatus(t, res, body, http.StatusUnprocessableEntity)
		if !strings.Contains(body, "too large to process") || !strings.Contains(body, `name="display_name"`) {
			t.Fatalf("bomb upload: the form with the message expected:\n%.2000s", body)
		}
		u, _ := m.Auth.ByUsername(context.Background(), "gus")
		if u.DisplayName != "" || u.AvatarURL() != "" {
			t.Errorf("after the refused upload: %+v; want nothing saved", u)
		}
	})
}
