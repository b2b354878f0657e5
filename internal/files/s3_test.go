package files

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files/filestest"
)

func TestParseS3URL(t *testing.T) {
	ok := []struct {
		url  string
		want S3Config
	}{
		{"s3://AK:SK@127.0.0.1:9000/uploads?secure=false", S3Config{Endpoint: "127.0.0.1:9000", AccessKey: "AK", SecretKey: "SK", Bucket: "uploads"}},
		{"s3://AK:S%2FK@s3.example.com/my-bucket/tutti/prod/?region=eu-west-1", S3Config{Endpoint: "s3.example.com", AccessKey: "AK", SecretKey: "S/K",
			Bucket: "my-bucket", KeyPrefix: "tutti/prod/", Region: "eu-west-1", Secure: true}},
	}
	for _, c := range ok {
		got, err := ParseS3URL(c.url)
		if err != nil || got != c.want {
			t.Errorf("ParseS3URL(%q) = %#v, %v; want %#v", c.url, got, err, c.want)
		}
	}
	bad := []string{
		"http://AK:SK@host/bucket",
		"s3://host/bucket",
		"s3://AK@host/bucket",
		"s3://AK:SK@/bucket",
		"s3://AK:SK@host:99999/bucket",
		"s3://AK:SK@host/",
		"s3://AK:SK@host/Bad_Bucket",
		"s3://AK:SK@host/b/../x",
		"s3://AK:SK@host/bucket?secure=maybe",
		"s3://AK:SK@host/bucket?acl=public",
		"s3://AK:SK@host/bucket?region=a/b",
		"s3://AK:s%zzK@host/bucket",
		"s3://AK:SK@host/" + strings.Repeat("b", 3000),
	}
	for _, u := range bad {
		_, err := ParseS3URL(u)
		if err == nil {
			t.Errorf("ParseS3URL(%q): nil error; want refused", u)
		} else if strings.Contains(err.Error(), "SK") || strings.Contains(err.Error(), "s%zzK") {
			t.Errorf("ParseS3URL(%q): error %q shows the secret", u, err)
		}
	}
}

// newS3 is an S3 storage on a fresh bucket of srv.
func newS3(t *testing.T, srv *filestest.MinIO, bucket string) *S3 {
	t.Helper()
	cfg, err := ParseS3URL(srv.URL(bucket))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewS3(context.Background(), cfg, Prefix)
	if err != nil {
		t.Fatalf("NewS3: %v", err)
	}
	return s
}

func TestS3(t *testing.T) {
	srv := filestest.Start(t)
	ctx := context.Background()
	s := newS3(t, srv, "uploads") // created on the way
	if ok, err := s.c.BucketExists(ctx, "uploads"); !ok || err != nil {
		t.Fatalf("bucket after NewS3: %v %v; want created", ok, err)
	}
	body := make([]byte, 100_000)
	for i := range body {
		body[i] = byte(i * 7)
	}

	t.Run("round trip", func(t *testing.T) {
		key := NewKey("avatars", ".jpg")
		if err := s.Put(ctx, key, bytes.NewReader(body), "image/jpeg"); err != nil {
			t.Fatal(err)
		}
		if got := s.URL(key); got != "/files/"+key {
			t.Errorf("URL = %q; want /files/%s", got, key)
		}
		f, err := s.Open(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(f)
		f.Close()
		if err != nil || !bytes.Equal(got, body) || f.ContentType() != "image/jpeg" {
			t.Fatalf("read back %d bytes (%v), %q; want the %d bytes put, image/jpeg", len(got), err, f.ContentType(), len(body))
		}
		if time.Since(f.ModTime()) > time.Minute {
			t.Errorf("ModTime %v; want about now", f.ModTime())
		}
		// A reader of unknown length goes up in parts.
		key2 := NewKey("audio", ".ogg")
		if err := s.Put(ctx, key2, io.MultiReader(bytes.NewReader(body)), ""); err != nil {
			t.Fatal(err)
		}
		if info, err := s.c.StatObject(ctx, "uploads", key2, minio.StatObjectOptions{}); err != nil || info.Size != int64(len(body)) || info.ContentType != "audio/ogg" {
			t.Errorf("streamed put: %+v %v; want %d bytes of audio/ogg", info, err, len(body))
		}
		for _, k := range []string{key, key2} {
			if err := s.Delete(ctx, k); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Open(ctx, k); errs.KindOf(err) != errs.NotFound {
				t.Errorf("open after delete: %v; want not found", err)
			}
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Errorf("second delete: %v; want nil", err)
		}
		if err := s.Put(ctx, "../evil", strings.NewReader("x"), ""); err == nil {
			t.Error("put ../evil: nil error; want refused")
		}
	})

	t.Run("served through Handler", func(t *testing.T) {
		key := NewKey("avatars", ".png")
		if err := s.Put(ctx, key, bytes.NewReader(body), "image/png"); err != nil {
			t.Fatal(err)
		}
		h := Handler(s, Prefix)
		get := func(path string, hdr map[string]string) *httptest.ResponseRecorder {
			req := httptest.NewRequest("GET", path, nil)
			for k, v := range hdr {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		rec := get("/files/"+key, nil)
		if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), body) || rec.Header().Get("Content-Length") != "100000" || rec.Header().Get("Content-Type") != "image/png" {
			t.Fatalf("GET: %d, %d bytes, %v; want 200 and the 100000 bytes as image/png", rec.Code, rec.Body.Len(), rec.Header())
		}
		etag, lastMod := rec.Header().Get("ETag"), rec.Header().Get("Last-Modified")

		rec = get("/files/"+key, map[string]string{"Range": "bytes=1000-1999"})
		if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), body[1000:2000]) ||
			rec.Header().Get("Content-Range") != "bytes 1000-1999/100000" || rec.Header().Get("Content-Length") != "1000" {
			t.Errorf("range: %d, %d bytes, %q; want 206 with bytes 1000-1999", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Range"))
		}
		rec = get("/files/"+key, map[string]string{"Range": "bytes=-10"})
		if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), body[len(body)-10:]) {
			t.Errorf("suffix range: %d %x; want 206 and the last 10 bytes", rec.Code, rec.Body.Bytes())
		}
		rec = get("/files/"+key, map[string]string{"Range": "bytes=200000-"})
		if rec.Code != http.StatusRequestedRangeNotSatisfiable {
			t.Errorf("range past the end: %d; want 416", rec.Code)
		}
		rec = get("/files/"+key, map[string]string{"If-None-Match": etag})
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("If-None-Match: %d; want 304", rec.Code)
		}
		rec = get("/files/"+key, map[string]string{"If-Modified-Since": lastMod})
		if rec.Code != http.StatusNotModified {
			t.Errorf("If-Modified-Since: %d; want 304", rec.Code)
		}
		for _, p := range []string{"/files/avatars/none.png", "/files/../x", "/files/"} {
			if rec := get(p, nil); rec.Code != 404 {
				t.Errorf("GET %s: %d; want 404", p, rec.Code)
			}
		}
	})

	t.Run("cancelled upload", func(t *testing.T) {
		key := NewKey("audio", ".ogg")
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(300*time.Millisecond, cancel)
		start := time.Now()
		err := s.Put(cctx, key, endless{}, "")
		if !errors.Is(err, context.Canceled) {
			t.Errorf("put with a cancelled context: %v; want context.Canceled", err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("put returned %v after the cancel; want at once", d)
		}
		if _, err := s.Open(ctx, key); errs.KindOf(err) != errs.NotFound {
			t.Errorf("open after a cancelled put: %v; want not found", err)
		}
		for u := range s.c.ListIncompleteUploads(ctx, "uploads", key, true) { // MinIO lists by exact name
			t.Errorf("incomplete upload left: %+v", u)
		}
	})

	t.Run("size limit", func(t *testing.T) {
		small := newS3(t, srv, "uploads")
		small.cfg.MaxObjectBytes = 1000
		key := NewKey("avatars", ".jpg")
		if err := small.Put(ctx, key, bytes.NewReader(body), ""); err == nil {
			t.Error("put of 100000 bytes under a 1000-byte limit: nil error; want refused")
		}
		if err := small.Put(ctx, key, io.MultiReader(bytes.NewReader(body)), ""); err == nil {
			t.Error("streamed put of 100000 bytes under a 1000-byte limit: nil error; want refused")
		}
		if _, err := s.Open(ctx, key); errs.KindOf(err) != errs.NotFound {
			t.Errorf("open after refused puts: %v; want not found", err)
		}
		if err := small.Put(ctx, key, io.MultiReader(bytes.NewReader(body[:1000])), ""); err != nil {
			t.Errorf("put of exactly the limit: %v; want stored", err)
		}
	})

	t.Run("bad credentials", func(t *testing.T) {
		cfg, _ := ParseS3URL(srv.URL("other"))
		cfg.SecretKey = "wrong-secret-123"
		_, err := NewS3(ctx, cfg, Prefix)
		if err == nil {
			t.Fatal("NewS3 with a wrong secret: nil error; want refused")
		}
		if strings.Contains(err.Error(), "wrong-secret-123") {
			t.Errorf("error %q shows the secret", err)
		}
	})
}

// endless is a reader that never ends, slowly.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	n := min(len(p), 4096)
	clear(p[:n])
	return n, nil
}

// A store that does not answer is a clear error at start, at once, without
// the secret.
func TestS3Unreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	cfg, err := ParseS3URL("s3://key:the-secret-key@" + addr + "/uploads?secure=false")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = NewS3(context.Background(), cfg, Prefix)
	if err == nil || !strings.Contains(err.Error(), "checking the bucket") || strings.Contains(err.Error(), "the-secret-key") {
		t.Errorf("NewS3 with nothing listening: %v; want a clear error without the secret", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("NewS3 took %v to fail; want at once", d)
	}
}
