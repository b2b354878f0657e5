package media_test

import (
	"bytes"
	"context"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/media"
)

// A picture's life: streamed, checked, its original stored privately and
// nothing derived yet (the app shows what it had); the job makes its sizes
// and tells the app; a newer upload replaces it and the older files go.
func TestUploadThenDerive(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB, st files.Storage) {
		ctx := context.Background()
		r := newRig(t, d, st)
		h := r.handler("pic")
		body, ct := form("me.png", pngOf(t, 600, 300), "image/png")
		if code, msg := post(t, h, body, ct); code != http.StatusSeeOther {
			t.Fatalf("upload: %d %s; want 303", code, msg)
		}
		if _, err := r.svc.Latest(ctx, "pic", 7); errs.KindOf(err) != errs.NotFound {
			t.Fatalf("before the job: latest %v; want none ready", err)
		}
		if len(r.ready) != 0 {
			t.Fatal("OnReady called before the job ran")
		}
		if err := r.svc.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		f, err := r.svc.Latest(ctx, "pic", 7)
		if err != nil || f.Status != media.Ready || len(r.ready) != 1 || r.ready[0].ID != f.ID {
			t.Fatalf("after the job: %+v %v, ready calls %d; want ready, told once", f, err, len(r.ready))
		}
		if !strings.HasPrefix(f.Key, media.PrivatePrefix) || f.Type != "image/png" || f.Size == 0 || len(f.SHA256) != 64 ||
			f.OwnerID != 1 || f.Meta["width"] != float64(600) {
			t.Errorf("original %+v; want private, typed, sized, hashed, its width", f)
		}
		if r.svc.URL(f) != "" {
			t.Errorf("an original has the public URL %q", r.svc.URL(f))
		}
		sq, small := f.Derived["square"], f.Derived["small"]
		if sq == nil || small == nil {
			t.Fatalf("derived %v; want square and small", f.Derived)
		}
		b, err := open(st, sq.Key)
		if img, err2 := jpeg.Decode(bytes.NewReader(b)); err != nil || err2 != nil || img.Bounds().Dx() != 256 || img.Bounds().Dy() != 256 {
			t.Errorf("square: %v %v; want a 256 x 256 JPEG", err, err2)
		}
		b, err = open(st, small.Key)
		if img, err2 := png.Decode(bytes.NewReader(b)); err != nil || err2 != nil || img.Bounds().Dx() != 100 || img.Bounds().Dy() != 50 {
			t.Errorf("small: %v %v; want a 100 x 50 PNG", err, err2)
		}
		// The public handler serves a derived file, never an original.
		fh := files.Handler(st, files.Prefix)
		for key, want := range map[string]int{sq.Key: 200, f.Key: 404} {
			rec := httptest.NewRecorder()
			fh.ServeHTTP(rec, httptest.NewRequest("GET", r.svc.Storage().URL(key), nil))
			if rec.Code != want {
				t.Errorf("GET /files/%s: %d; want %d", key, rec.Code, want)
			}
		}

		// A newer upload: shown once made; the older files go.
		body, ct = form("new.png", pngOf(t, 50, 40), "image/png")
		if code, msg := post(t, h, body, ct); code != http.StatusSeeOther {
			t.Fatalf("second upload: %d %s", code, msg)
		}
		if err := r.svc.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		g, err := r.svc.Latest(ctx, "pic", 7)
		if err != nil || g.ID == f.ID || len(r.ready) != 2 {
			t.Fatalf("after the second job: %+v %v; want the new one ready", g, err)
		}
		for _, key := range []string{f.Key, sq.Key, small.Key} {
			if _, err := open(st, key); errs.KindOf(err) != errs.NotFound {
				t.Errorf("older file %s: %v; want deleted", key, err)
			}
		}
		if _, err := r.svc.Get(ctx, f.ID); errs.KindOf(err) != errs.NotFound {
			t.Errorf("older row: %v; want deleted", err)
		}
		// Forget removes every upload of the thing, files too.
		if err := r.svc.Forget(ctx, "pic", 7); err != nil {
			t.Fatal(err)
		}
		if n := count(t, d); n != 0 {
			t.Errorf("after Forget: %d rows; want 0", n)
		}
		if _, err := open(st, g.Derived["square"].Key); errs.KindOf(err) != errs.NotFound {
			t.Errorf("after Forget: %v; want the file deleted", err)
		}
		if n := filesUnder(t, r.tmp); n != 0 {
			t.Errorf("%d temporary files left; want none", n)
		}
	})
}

// Two uploads before the first job runs: the older is superseded (deleted,
// never shown), the newer shown.
func TestSupersededUploadNeverShown(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB, st files.Storage) {
		ctx := context.Background()
		r := newRig(t, d, st)
		h := r.handler("pic")
		for _, w := range []int{30, 60} {
			body, ct := form("p.png", pngOf(t, w, w), "image/png")
			if code, msg := post(t, h, body, ct); code != http.StatusSeeOther {
				t.Fatalf("upload: %d %s", code, msg)
			}
		}
		if err := r.svc.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		if len(r.ready) != 1 || r.ready[0].Meta["width"] != float64(60) {
			t.Fatalf("ready calls %d (%v); want only the newer", len(r.ready), r.ready)
		}
		if n := count(t, d); n != 3 { // the newer original and its two sizes
			t.Errorf("%d rows; want 3", n)
		}
	})
}

// A picture whose structure is whole but whose pixels cannot be decoded
// passes the upload's checks and fails in the job: marked failed, never
// shown, the job not retried.
func TestUndecodablePictureFails(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB, st files.Storage) {
		ctx := context.Background()
		r := newRig(t, d, st)
		good := pngOf(t, 20, 20)
		// Keep the signature, IHDR and IEND; replace the pixels by junk.
		bad := append([]byte{}, good[:33]...)
		bad = append(bad, chunk("IDAT", []byte("not zlib at all"))...)
		bad = append(bad, chunk("IEND", nil)...)
		body, ct := form("bad.png", bad, "image/png")
		if code, msg := post(t, r.handler("pic"), body, ct); code != http.StatusSeeOther {
			t.Fatalf("upload: %d %s; want kept (its header and structure are fine)", code, msg)
		}
		if err := r.svc.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		var status, meta string
		if err := db.Scan(d.QueryRow(ctx, `SELECT status, meta FROM media_files`), &status, &meta); err != nil {
			t.Fatal(err)
		}
		if status != media.Failed || !strings.Contains(meta, media.NotAPicture) || len(r.ready) != 0 {
			t.Errorf("status %s meta %s, ready %d; want failed with the reason, never shown", status, meta, len(r.ready))
		}
	})
}

// Hostile uploads: each a clear 4xx with its message, the other fields
// kept, and nothing stored (no row, no file, no temporary file).
func TestHostileUploads(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB, st files.Storage) {
		r := newRig(t, d, st)
		h := r.handler("pic")
		pic := pngOf(t, 40, 40)
		withText := append(append([]byte{}, pic[:33]...), chunk("tEXt", []byte("Comment\x00<HTML><body onload=alert(1)>"))...)
		withText = append(withText, pic[33:]...)
		zipped := append(append([]byte{}, pic...), []byte("PK\x03\x04 a zip file after the picture")...)
		html := []byte("<!doctype html><script>alert(document.cookie)</script>")
		gifJS := []byte("GIF89a/*\x01\x00\x01\x00\x00\x00\x00*/=alert(1);")
		for _, c := range []struct {
			name    string
			content []byte
			want    int
			msg     string
		}{
			{"0 bytes", nil, 422, "empty"},
			{"truncated", pic[:len(pic)-20], 422, media.Truncated},
			{"header only", pic[:40], 422, media.Truncated},
			{"polyglot: markup in a chunk", withText, 422, media.Polyglot},
			{"polyglot: a zip after the end", zipped, 422, media.Polyglot},
			{"polyglot: GIF and script", gifJS, 422, ""},
			{"decompression bomb", bomb(), 422, "too large to process"},
			{"a page declared as a PNG", html, 422, media.NotAPicture},
			{"over the limit", append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, files.MaxImageBytes)...), 422, files.TooLargeMessage},
		} {
			t.Run(c.name, func(t *testing.T) {
				body, ct := form("photo.png", c.content, "image/png")
				code, msg := post(t, h, body, ct)
				if code != c.want || !strings.Contains(msg, c.msg) || !strings.HasSuffix(strings.TrimSpace(msg), "|Kept") {
					t.Errorf("%d %q; want %d with %q and the title kept", code, msg, c.want, c.msg)
				}
				if n := count(t, d); n != 0 {
					t.Errorf("%d rows stored; want none", n)
				}
				if local, ok := st.(*files.Local); ok {
					if n := filesUnder(t, local.Root); n != 0 {
						t.Errorf("%d files stored; want none", n)
					}
				}
				if n := filesUnder(t, r.tmp); n != 0 {
					t.Errorf("%d temporary files left; want none", n)
				}
			})
		}
	})
}

// endless is a body that never ends, counting what was read of it.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// A body that claims 1 GB is refused before it is read (413); one streamed
// without a length past the limit is read no further than the limit and
// the slack for the fields after it: the file is refused by its field, and
// nothing is stored.
func TestHugeUploadStopsAtTheLimit(t *testing.T) {
	each(t, func(t *testing.T, d *db.DB, st files.Storage) {
		r := newRig(t, d, st)
		h := r.handler("pic")
		req := httptest.NewRequest("POST", "/up", strings.NewReader("--b\r\n"))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		req.ContentLength = 1 << 30
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("1 GB claimed: %d %s; want 413", rec.Code, rec.Body)
		}

		src := &endless{}
		head := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.png\"\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n"
		req = httptest.NewRequest("POST", "/up", io.MultiReader(strings.NewReader(head), io.LimitReader(src, 1<<30)))
		req.Header.Set("Content-Type", "multipart/form-data; boundary=b")
		req.ContentLength = -1
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		limit := int64(files.MaxImageBytes)
		if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), files.TooLargeMessage) {
			t.Errorf("1 GB streamed: %d %s; want 422 with the limit's message", rec.Code, rec.Body)
		}
		if src.n > 2*limit+2<<20 {
			t.Errorf("read %d MB of the body; want at most the limit and its slack (%d MB)", src.n>>20, (2*limit+2<<20)>>20)
		}
		t.Logf("a 1 GB streamed upload: %d MB read before it was refused (limit %d MB)", src.n>>20, limit>>20)
		if n := count(t, d); n != 0 {
			t.Errorf("%d rows stored; want none", n)
		}
		if n := filesUnder(t, r.tmp); n != 0 {
			t.Errorf("%d temporary files left; want none", n)
		}
	})
}

// A form with a file follows web.ParseForm's rule on body types: a body
// of another type (or of none named) is refused, not read as an empty form.
func TestReadFormRefusesABodyThatIsNotAForm(t *testing.T) {
	st, _ := files.NewLocal(t.TempDir(), files.Prefix)
	svc, err := media.New(media.Deps{Files: st, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ctype string
		want  errs.Kind
	}{
		{"application/x-www-form-urlencoded", errs.None},
		{"", errs.BadRequest},
		{"application/octet-stream", errs.BadRequest},
		{"text/plain", errs.BadRequest},
		{"multipart/form-data", errs.Invalid}, // no boundary
	} {
		r := httptest.NewRequest("POST", "/race/new", strings.NewReader("display_name=Erin"))
		if tc.ctype != "" {
			r.Header.Set("Content-Type", tc.ctype)
		}
		up, err := svc.ReadForm(r, "logo", "pic")
		if errs.KindOf(err) != tc.want || up != nil {
			t.Errorf("%q: %v; want kind %v", tc.ctype, err, tc.want)
		}
		if tc.want == errs.None && r.PostForm.Get("display_name") != "Erin" {
			t.Errorf("%q: display_name %q; want Erin", tc.ctype, r.PostForm.Get("display_name"))
		}
	}
	// A kind not registered (no storage for it): the form is read, a file
	// refused by its field.
	body, ct := form("a.png", pngOf(t, 4, 4), "image/png")
	r := httptest.NewRequest("POST", "/up", body)
	r.Header.Set("Content-Type", ct)
	if _, err := svc.ReadForm(r, "file", "nothing"); errs.FieldsOf(err)["file"] != media.CannotUpload || r.PostForm.Get("title") != "Kept" {
		t.Errorf("unregistered kind: %v, title %q; want the field refused, the title read", err, r.PostForm.Get("title"))
	}
}
