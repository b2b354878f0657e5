package media_test

import (
	"fmt"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/media"
)

// streamForm is a multipart body of size bytes of file (field "file",
// after a title), written through a pipe from one 64 KB buffer: making it
// holds no memory that grows with size.
func streamForm(size int64) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		mw.WriteField("title", "Kept")
		fw, _ := mw.CreateFormFile("file", "big.bin")
		buf := make([]byte, 64<<10)
		copy(buf, "BLOB")
		for left := size; left > 0; {
			n := min(left, int64(len(buf)))
			fw.Write(buf[:n])
			left -= n
		}
		mw.Close()
		pw.Close()
	}()
	return pr, mw.FormDataContentType()
}

// blobService is a service with kind "blob": any bytes up to 64 MB, no
// check (only the reading of the form is measured).
func blobService(t testing.TB) *media.Service {
	st, err := files.NewLocal(t.TempDir(), files.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := media.New(media.Deps{Files: st, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	svc.Register(media.Kind{Name: "blob", MaxBytes: 64 << 20, Types: []string{"application/octet-stream"}})
	return svc
}

// readOnce reads one streamed upload of size bytes, returning the bytes
// allocated meanwhile and the heap in use after (before the upload is
// closed).
func readOnce(t testing.TB, svc *media.Service, size int64) (alloc, heap uint64) {
	body, ct := streamForm(size)
	req := httptest.NewRequest("POST", "/up", body)
	req.Header.Set("Content-Type", ct)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	up, err := svc.ReadForm(req, "file", "blob")
	runtime.ReadMemStats(&after)
	if err != nil || up == nil || up.Size != size || req.PostForm.Get("title") != "Kept" {
		t.Fatalf("%d bytes: %+v %v", size, up, err)
	}
	up.Close()
	return after.TotalAlloc - before.TotalAlloc, after.HeapInuse
}

// TestUploadMemoryFlat: reading a 10 MB and a 50 MB upload allocates
// about the same (buffers, not the file), far below either size, and the
// heap in use does not grow with the file.
func TestUploadMemoryFlat(t *testing.T) {
	svc := blobService(t)
	readOnce(t, svc, 1<<20) // warm up
	a10, h10 := readOnce(t, svc, 10<<20)
	a50, h50 := readOnce(t, svc, 50<<20)
	t.Logf("10 MB upload: %d KB allocated, heap in use %d KB", a10>>10, h10>>10)
	t.Logf("50 MB upload: %d KB allocated, heap in use %d KB", a50>>10, h50>>10)
	if a50 > 2<<20 || a10 > 2<<20 {
		t.Errorf("allocated %d KB (10 MB) and %d KB (50 MB); want under 2 MB each", a10>>10, a50>>10)
	}
	if a50 > 2*a10+256<<10 {
		t.Errorf("allocation grows with the file: %d KB for 10 MB, %d KB for 50 MB", a10>>10, a50>>10)
	}
	if h50 > h10+4<<20 {
		t.Errorf("heap in use grows with the file: %d KB after 10 MB, %d KB after 50 MB", h10>>10, h50>>10)
	}
}

// BenchmarkReadForm reports the bytes allocated reading an upload of
// each size (B/op): flat across sizes.
func BenchmarkReadForm(b *testing.B) {
	for _, mb := range []int64{10, 50} {
		b.Run(fmt.Sprintf("%dMB", mb), func(b *testing.B) {
			svc := blobService(b)
			b.ReportAllocs()
			b.SetBytes(mb << 20)
			for b.Loop() {
				body, ct := streamForm(mb << 20)
				req := httptest.NewRequest("POST", "/up", body)
				req.Header.Set("Content-Type", ct)
				up, err := svc.ReadForm(req, "file", "blob")
				if err != nil {
					b.Fatal(err)
				}
				up.Close()
			}
		})
	}
}
