package files

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/errs"
)

func TestValidKey(t *testing.T) {
	cases := []struct {
		key  string
		want bool
	}{
		{"avatars/abc.jpg", true},
		{"a/b/c_d-e.png", true},
		{"", false},
		{"../etc/passwd", false},
		{"avatars/../x", false},
		{"/abs", false},
		{"a//b", false},
		{"a/.hidden", false},
		{"a b", false},
		{"a\\b", false},
		{strings.Repeat("a", 201), false},
	}
	for _, c := range cases {
		if got := ValidKey(c.key); got != c.want {
			t.Errorf("ValidKey(%q) = %v; want %v", c.key, got, c.want)
		}
	}
}

func TestLocalPutOpenServeDelete(t *testing.T) {
	ctx := context.Background()
	l, err := NewLocal(t.TempDir(), "/files/")
	if err != nil {
		t.Fatal(err)
	}
	key := NewKey("avatars", ".jpg")
	if err := l.Put(ctx, key, strings.NewReader("jpegbytes"), "image/jpeg"); err != nil {
		t.Fatal(err)
	}
	if got := l.URL(key); got != "/files/"+key {
		t.Errorf("URL = %q; want /files/%s", got, key)
	}
	f, err := l.Open(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "jpegbytes" || f.ContentType() != "image/jpeg" {
		t.Errorf("got %q %q; want jpegbytes image/jpeg", b, f.ContentType())
	}

	h := Handler(l, "/files/")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/files/"+key, nil))
	if rec.Code != 200 || rec.Body.String() != "jpegbytes" {
		t.Fatalf("GET: %d %q; want 200 jpegbytes", rec.Code, rec.Body.String())
	}
	if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "immutable") {
		t.Errorf("Cache-Control = %q; want immutable", cc)
	}
	req := httptest.NewRequest("GET", "/files/"+key, nil)
	req.Header.Set("If-None-Match", rec.Header().Get("ETag"))
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotModified {
		t.Errorf("revalidation: %d; want 304", rec.Code)
	}

	for _, p := range []string{"/files/../x", "/files/avatars/none.jpg", "/files/"} {
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", p, nil))
		if rec.Code != 404 {
			t.Errorf("GET %s: %d; want 404", p, rec.Code)
		}
	}

	if err := l.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete(ctx, key); err != nil {
		t.Errorf("second delete: %v; want nil", err)
	}
	if _, err := l.Open(ctx, key); errs.KindOf(err) != errs.NotFound {
		t.Errorf("open after delete: %v; want not found", err)
	}
	if err := l.Put(ctx, "../evil", strings.NewReader("x"), ""); err == nil {
		t.Error("put ../evil: nil error; want refused")
	}
}

// WriteFile gives the file its mode and renames it into place; a write that
// fails (its context ended) leaves neither the file nor a temporary one.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b.txt")
	if err := WriteFile(context.Background(), p, strings.NewReader("hello"), 0o755, 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("written file: %v, %v; want mode 0644", fi, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	q := filepath.Join(dir, "a", "c.txt")
	if err := WriteFile(ctx, q, strings.NewReader("never"), 0o755, 0o644); err == nil {
		t.Fatal("write with an ended context: no error")
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "a")); len(ents) != 1 {
		t.Errorf("after a failed write the directory holds %d entries; want 1 (b.txt only)", len(ents))
	}
}
