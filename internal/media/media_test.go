package media_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/files/filestest"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/web"
)

// storages are the storages a test runs on: the local disk always, and S3
// (a real MinIO) when TUTTI_TEST_MINIO names its binary. The local one's
// root is returned too, to see what is stored.
func storages(t *testing.T) map[string]files.Storage {
	t.Helper()
	local, err := files.NewLocal(t.TempDir(), files.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]files.Storage{"local": local}
	if os.Getenv("TUTTI_TEST_MINIO") != "" {
		srv := filestest.Start(t)
		cfg, err := files.ParseS3URL(srv.URL("media-test"))
		if err != nil {
			t.Fatal(err)
		}
		s3, err := files.NewS3(context.Background(), cfg, files.Prefix)
		if err != nil {
			t.Fatal(err)
		}
		out["s3"] = s3
	}
	return out
}

// each runs fn on every database and every storage.
func each(t *testing.T, fn func(t *testing.T, d *db.DB, st files.Storage)) {
	sts := storages(t)
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		for name, st := range sts {
			t.Run(name, func(t *testing.T) { fn(t, d, st) })
		}
	}, jobs.Migrations, media.Migrations)
}

// rig is a media service with a picture kind "pic" (a 256 square and a
// 100 px fit), its OnReady calls recorded.
type rig struct {
	svc   *media.Service
	d     *db.DB
	st    files.Storage
	tmp   string
	q     *jobs.Queue
	mu    sync.Mutex
	ready []*media.File
}

func newRig(t *testing.T, d *db.DB, st files.Storage) *rig {
	t.Helper()
	r := &rig{d: d, st: st, tmp: t.TempDir()}
	q := jobs.New(d, jobs.Options{})
	svc, err := media.New(media.Deps{DB: d, Files: st, Jobs: q, TempDir: r.tmp})
	if err != nil {
		t.Fatal(err)
	}
	r.svc, r.q = svc, q
	budget := files.NewImageBudget(files.DefaultImageBudget)
	k := media.ImageKind("pic", "pics", budget,
		media.Resize("square", budget, 256, 256, media.Fill, media.JPEG),
		media.Resize("small", budget, 100, 100, media.Within, media.PNG))
	k.OnReady = func(_ context.Context, f *media.File) error {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.ready = append(r.ready, f)
		return nil
	}
	svc.Register(k)
	return r
}

// handler reads a form with field "file" of kind and keeps it for ref 7,
// answering as an app would: 422 with the field's message, the error's
// status otherwise, 303 when kept.
func (r *rig) handler(kind string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		up, err := r.svc.ReadForm(req, "file", kind)
		defer up.Close()
		if f := errs.FieldsOf(err); f != nil {
			http.Error(w, f["file"]+"|"+req.PostForm.Get("title"), http.StatusUnprocessableEntity)
			return
		}
		if err != nil {
			http.Error(w, errs.As(err).Message, web.Status(errs.KindOf(err)))
			return
		}
		if up == nil {
			http.Error(w, "no file", http.StatusUnprocessableEntity)
			return
		}
		if _, err := r.svc.Save(req.Context(), up, 7, 1); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusSeeOther)
	})
}

// form is a multipart body: title, then the file.
func form(name string, content []byte, declared string) (io.Reader, string) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("title", "Kept")
	h := make(map[string][]string)
	h["Content-Disposition"] = []string{`form-data; name="file"; filename="` + name + `"`}
	h["Content-Type"] = []string{declared}
	fw, _ := mw.CreatePart(h)
	fw.Write(content)
	mw.Close()
	return &buf, mw.FormDataContentType()
}

func post(t *testing.T, h http.Handler, body io.Reader, ctype string) (int, string) {
	t.Helper()
	req := httptest.NewRequest("POST", "/up", body)
	req.Header.Set("Content-Type", ctype)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.NRGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// chunk is a PNG chunk.
func chunk(kind string, data []byte) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.BigEndian, uint32(len(data)))
	b.WriteString(kind)
	b.Write(data)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	return b.Bytes()
}

// bomb is a PNG whose header claims 30,000 x 30,000 RGBA pixels (3.6 GB
// decoded), and nothing else.
func bomb() []byte {
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 30000)
	binary.BigEndian.PutUint32(ihdr[4:], 30000)
	ihdr[8], ihdr[9] = 8, 6
	return append([]byte("\x89PNG\r\n\x1a\n"), chunk("IHDR", ihdr)...)
}

// count is the number of rows of media_files.
func count(t *testing.T, d *db.DB) int {
	t.Helper()
	var n int
	if err := db.Scan(d.QueryRow(context.Background(), `SELECT COUNT(*) FROM media_files`), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// filesUnder counts the regular files under dir.
func filesUnder(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// open reads a stored file whole; errs.ErrNotFound when missing.
func open(st files.Storage, key string) ([]byte, error) {
	f, err := st.Open(context.Background(), key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
