package media_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/media"
)

// webp1x1 is a 1 x 1 lossless WebP.
var webp1x1 = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

// Every accepted picture type passes the checks and is derived.
func TestPictureTypesAccepted(t *testing.T) {
	img := image.NewPaletted(image.Rect(0, 0, 30, 20), color.Palette{color.Black, color.White})
	var g, j bytes.Buffer
	if err := gif.Encode(&g, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := jpeg.Encode(&j, image.NewRGBA(image.Rect(0, 0, 30, 20)), nil); err != nil {
		t.Fatal(err)
	}
	each(t, func(t *testing.T, d *db.DB, st files.Storage) {
		r := newRig(t, d, st)
		for name, b := range map[string][]byte{"gif": g.Bytes(), "jpeg": j.Bytes(), "png": pngOf(t, 30, 20), "webp": webp1x1} {
			body, ct := form("x.bin", b, "application/octet-stream")
			if code, msg := post(t, r.handler("pic"), body, ct); code != http.StatusSeeOther {
				t.Errorf("%s: %d %s; want accepted", name, code, msg)
			}
			if err := r.svc.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		if len(r.ready) != 4 {
			t.Errorf("%d ready; want 4", len(r.ready))
		}
	})
}

// A kind of the app's own (as music's audio will be): its sniffer and
// check run at upload, their Meta kept; its derivation (a "waveform", kept
// private) is given the original and its Meta by the job.
func TestOwnKindWithPrivateDerivation(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB, st files.Storage) {
		ctx := context.Background()
		r := newRig(t, d, st)
		var gotSize int64
		r.svc.Register(media.Kind{
			Name: "note", Dir: "notes", MaxBytes: 1 << 20, Types: []string{"text/x-note"},
			Sniff: func(head []byte) string {
				if bytes.HasPrefix(head, []byte("NOTE")) {
					return "text/x-note"
				}
				return "other"
			},
			Check: func(_ context.Context, f io.ReaderAt, size int64) (media.Meta, error) {
				b := make([]byte, size)
				if _, err := f.ReadAt(b, 0); err != nil {
					return nil, err
				}
				if bytes.Contains(b, []byte("bad")) {
					return nil, errs.E(errs.Invalid, "A bad note.")
				}
				return media.Meta{"words": len(bytes.Fields(b))}, nil
			},
			Derive: []media.Derivation{{Name: "waveform", Private: true, Make: func(_ context.Context, src media.Source) (media.Output, error) {
				gotSize = src.Size
				b, _ := json.Marshal(map[string]any{"peaks": []int{1, 2, 3}, "words": src.Meta["words"]})
				return media.Output{Data: b, Type: "application/json", Ext: ".json"}, nil
			}}},
		})
		for _, c := range []struct {
			content string
			code    int
			msg     string
		}{
			{"not a note", 422, "not accepted"},
			{"NOTE a bad one", 422, "A bad note."},
			{"NOTE three words", 303, ""},
		} {
			body, ct := form("n.txt", []byte(c.content), "text/plain")
			if code, msg := post(t, r.handler("note"), body, ct); code != c.code || !strings.Contains(msg, c.msg) {
				t.Errorf("%q: %d %q; want %d %q", c.content, code, msg, c.code, c.msg)
			}
		}
		if err := r.svc.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		f, err := r.svc.Latest(ctx, "note", 7)
		if err != nil {
			t.Fatal(err)
		}
		w := f.Derived["waveform"]
		if w == nil || !strings.HasPrefix(w.Key, media.PrivatePrefix+"notes/") || r.svc.URL(w) != "" || gotSize != int64(len("NOTE three words")) {
			t.Fatalf("waveform %+v (source %d bytes); want private, from the whole original", w, gotSize)
		}
		b, err := open(st, w.Key)
		if err != nil || string(b) != `{"peaks":[1,2,3],"words":3}` {
			t.Errorf("waveform %s %v", b, err)
		}
	})
}

// A derivation that fails for a reason other than the file is retried:
// the job is not lost, the upload stays pending until it succeeds.
func TestDerivationRetried(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB, st files.Storage) {
		ctx := context.Background()
		r := newRig(t, d, st)
		fails := 1
		r.svc.Register(media.Kind{Name: "flaky", MaxBytes: 1 << 10, Types: []string{"text/plain; charset=utf-8"},
			Derive: []media.Derivation{{Name: "copy", Make: func(context.Context, media.Source) (media.Output, error) {
				if fails > 0 {
					fails--
					return media.Output{}, errors.New("the disk hiccuped")
				}
				return media.Output{Data: []byte("ok"), Type: "text/plain", Ext: ".txt"}, nil
			}}}})
		body, ct := form("a.txt", []byte("hello"), "text/plain")
		if code, msg := post(t, r.handler("flaky"), body, ct); code != http.StatusSeeOther {
			t.Fatalf("%d %s", code, msg)
		}
		q := r.q
		if ran, err := q.RunOne(ctx); !ran || err != nil {
			t.Fatalf("first run: %v %v", ran, err)
		}
		var status string
		db.Scan(d.QueryRow(ctx, `SELECT status FROM media_files`), &status)
		if status != media.Pending {
			t.Fatalf("after a failed attempt: %s; want pending (retried)", status)
		}
		var attempts int
		var state string
		db.Scan(d.QueryRow(ctx, `SELECT attempts, state FROM jobs`), &attempts, &state)
		if attempts != 1 || state != "ready" {
			t.Errorf("job after a failure: attempts %d state %s; want retried later", attempts, state)
		}
	})
}
