package app_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/files/filestest"
)

// TestUploadsInS3 runs the avatar's life with TUTTI_STORAGE_URL set: the
// upload lands in MinIO (not on the local disk), /files/ streams it back,
// ranges included, and deleting the account deletes the object.
func TestUploadsInS3(t *testing.T) {
	srv := filestest.Start(t)
	m := apptest.StartWith(t, func(c *config.Config) { c.StorageURL = srv.URL("tutti-uploads") })
	if _, ok := m.Files.(*files.S3); !ok {
		t.Fatalf("storage %T; want *files.S3", m.Files)
	}
	mc, err := minio.New(srv.Addr, &minio.Options{Creds: credentials.NewStaticV4(filestest.User, filestest.Password, "")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	w := apptest.NewWeb(t, m)
	res, body := w.Post("/account/signup", url.Values{"username": {"sam"}, "email": {"sam@example.com"}, "password": {"password1"}})
	apptest.WantRedirect(t, res, body)

	var buf bytes.Buffer
	img := image.NewRGBA(image.Rect(0, 0, 300, 200))
	for x := range 300 {
		for y := range 200 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var pic bytes.Buffer
	png.Encode(&pic, img)
	mw := multipart.NewWriter(&buf)
	mw.WriteField("display_name", "Sam")
	fw, _ := mw.CreateFormFile("avatar", "me.png")
	fw.Write(pic.Bytes())
	mw.Close()
	res, body = w.Do("POST", "/account/settings", &buf, http.Header{"Content-Type": {mw.FormDataContentType()}})
	apptest.WantRedirect(t, res, body)
	apptest.SettleMedia(t, m) // the picture is made by a job

	u, err := m.Auth.ByUsername(ctx, "sam")
	if err != nil || u.AvatarURL() == "" {
		t.Fatalf("after the upload: %+v %v; want an avatar", u, err)
	}
	key := strings.TrimPrefix(u.AvatarURL(), files.Prefix)
	info, err := mc.StatObject(ctx, "tutti-uploads", key, minio.StatObjectOptions{})
	if err != nil || info.ContentType != "image/jpeg" {
		t.Fatalf("object %s in MinIO: %+v %v; want a JPEG", key, info, err)
	}
	if _, err := os.Stat(filepath.Join(m.Config.DataDir, "uploads")); !os.IsNotExist(err) {
		t.Errorf("local uploads directory: %v; want none in S3 mode", err)
	}

	res, body = w.Get(u.AvatarURL())
	apptest.WantStatus(t, res, body, 200)
	got, err := jpeg.Decode(strings.NewReader(body))
	if err != nil || got.Bounds().Dx() != auth.AvatarSize || int64(len(body)) != info.Size {
		t.Fatalf("served avatar: %d bytes (object: %d), %v; want the %dx%d JPEG", len(body), info.Size, err, auth.AvatarSize, auth.AvatarSize)
	}
	res, part := w.Do("GET", u.AvatarURL(), nil, http.Header{"Range": {"bytes=2-11"}})
	if res.StatusCode != http.StatusPartialContent || part != body[2:12] {
		t.Errorf("range through the app: %d %q; want 206 and bytes 2-11", res.StatusCode, part)
	}
	res, body = w.Get(files.Prefix + "avatars/missing.jpg")
	apptest.WantStatus(t, res, body, 404)

	res, body = w.Post("/account/delete", url.Values{"password": {"password1"}})
	apptest.WantRedirect(t, res, body)
	if _, err := mc.StatObject(ctx, "tutti-uploads", key, minio.StatObjectOptions{}); minio.ToErrorResponse(err).Code != minio.NoSuchKey {
		t.Errorf("object after the account's deletion: %v; want NoSuchKey", err)
	}
	res, body = apptest.NewWeb(t, m).Get(u.AvatarURL())
	apptest.WantStatus(t, res, body, 404)
}
