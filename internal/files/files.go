// Package files stores uploaded files (avatars, pictures, audio) under keys
// and serves them. Local keeps them on disk under DATA-DIR/uploads (embedded
// mode); S3 keeps them in a bucket of an S3-compatible store (cluster mode,
// --storage-url), tested against a real MinIO (filestest). Either way they
// are served by Handler under /files/, streamed with ranges and conditional
// requests. A store that fails makes uploads fail, not the instance: it is
// not part of /readyz, which would take every instance out at once.
//
// Keys are random or content-addressed and never reused, so a stored file
// never changes: the handler serves it with immutable cache headers.
//
// An app that takes uploads keeps them through internal/media (streamed,
// checked by content, the original private under PrivatePrefix, derived
// sizes made by a job), which stores them here: never on the local disk
// itself, which a second instance would not see. An ImageBudget bounds the
// memory that decoding images may take at once.
package files

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Prefix is where stored files are served (mount Handler there).
const Prefix = "/files/"

// PrivatePrefix starts the keys of private files (uploads' originals,
// internal/media): Handler refuses them; the app serves them to whom it
// allows (media.ServePrivate).
const PrivatePrefix = "private/"

// Storage keeps files under keys such as "avatars/3kX9....jpg".
type Storage interface {
	// Put stores r under key (replacing nothing: keys are never reused).
	Put(ctx context.Context, key string, r io.Reader, contentType string) error
	// Open returns the file under key, or errs.ErrNotFound.
	Open(ctx context.Context, key string) (File, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// URL is where browsers fetch key.
	URL(key string) string
}

// File is an open stored file.
type File interface {
	io.ReadSeekCloser
	ContentType() string
	ModTime() time.Time
}

// NewKey makes a fresh random key under dir with extension ext (".jpg").
func NewKey(dir, ext string) string {
	b := make([]byte, 16)
	rand.Read(b)
	return dir + "/" + base64.RawURLEncoding.EncodeToString(b) + ext
}

// ValidKey reports whether key is safe to use as a path: segments of
// [A-Za-z0-9_-.], no empty, "." or ".." segment, at most 200 bytes.
func ValidKey(key string) bool {
	if key == "" || len(key) > 200 {
		return false
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || seg[0] == '.' {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
				return false
			}
		}
	}
	return true
}

// Local stores files on disk under Root and serves them under Prefix.
type Local struct {
	Root   string // e.g. DATA-DIR/uploads
	Prefix string // URL prefix, e.g. /files/
}

// NewLocal makes the root directory and returns the storage.
func NewLocal(root, prefix string) (*Local, error) {
	if err := os.MkdirAll(root, 0o750); err != nil {
		return nil, fmt.Errorf("files: %w", err)
	}
	return &Local{Root: root, Prefix: prefix}, nil
}

func (l *Local) path(key string) (string, error) {
	if !ValidKey(key) {
		return "", fmt.Errorf("files: bad key %q", key)
	}
	return filepath.Join(l.Root, filepath.FromSlash(key)), nil
}

// Put writes r to a temporary file and renames it into place, so that a
// reader never sees half a file.
func (l *Local) Put(ctx context.Context, key string, r io.Reader, _ string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := WriteFile(ctx, p, r, 0o750, 0o600); err != nil {
		return fmt.Errorf("files: put %s: %w", key, err)
	}
	return nil
}

// WriteFile writes r to path through a temporary file in its directory,
// renamed into place once complete, so that a reader never sees half a
// file (and a failed write leaves none). Missing directories are made with
// dirPerm; the file gets perm.
func WriteFile(ctx context.Context, path string, r io.Reader, dirPerm, perm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), dirPerm); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = io.Copy(f, ctxReader{ctx, r})
	if err == nil && perm != 0o600 { // CreateTemp made it 0600
		err = f.Chmod(perm)
	}
	err = errors.Join(err, f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Open implements Storage.
func (l *Local) Open(_ context.Context, key string) (File, error) {
	p, err := l.path(key)
	if err != nil {
		return nil, errs.ErrNotFound
	}
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, errs.ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("files: open %s: %w", key, err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, errs.ErrNotFound
	}
	return &localFile{File: f, ctype: typeOf(key), mod: st.ModTime()}, nil
}

// Delete implements Storage.
func (l *Local) Delete(_ context.Context, key string) error {
	p, err := l.path(key)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("files: delete %s: %w", key, err)
	}
	return nil
}

// URL implements Storage.
func (l *Local) URL(key string) string { return l.Prefix + key }

type localFile struct {
	*os.File
	ctype string
	mod   time.Time
}

func (f *localFile) ContentType() string { return f.ctype }
func (f *localFile) ModTime() time.Time  { return f.mod }

// typeOf is the content type for key's extension; unknown ones are served as
// bytes to download, never as something a browser would run.
func typeOf(key string) string {
	switch ext := strings.ToLower(path.Ext(key)); ext {
	case ".jpg", ".jpeg", ".png", ".gif", ".webp", ".avif", ".mp3", ".ogg", ".opus", ".webm", ".m4a", ".flac", ".wav", ".mp4":
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
	}
	return "application/octet-stream"
}

// ContextReader is r, failing once ctx is done.
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// Handler serves the files of s under prefix (mount it as "GET "+prefix):
// immutable, with ranges and conditional requests handled by
// http.ServeContent. Keys under PrivatePrefix are not found.
func Handler(s Storage, prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := strings.TrimPrefix(r.URL.Path, prefix)
		if strings.HasPrefix(key, PrivatePrefix) {
			http.NotFound(w, r)
			return
		}
		Serve(w, r, s, key, "public, max-age=31536000, immutable")
	})
}

// Serve answers r with the file of s under key (404 when missing or not a
// valid key), with cacheControl, its type from its key (never sniffed by the
// browser: nosniff), and ranges and conditional requests handled by
// http.ServeContent (keys never change: the key is the ETag).
func Serve(w http.ResponseWriter, r *http.Request, s Storage, key, cacheControl string) {
	if !ValidKey(key) {
		http.NotFound(w, r)
		return
	}
	f, err := s.Open(r.Context(), key)
	if err != nil {
		if errs.KindOf(err) != errs.NotFound {
			http.Error(w, "could not read the file", http.StatusInternalServerError)
			return
		}
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", f.ContentType())
	h.Set("Cache-Control", cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", `"`+key+`"`) // valid keys hold no quote
	if f.ContentType() == "application/octet-stream" {
		h.Set("Content-Disposition", "attachment")
	}
	http.ServeContent(w, r, "", f.ModTime(), f)
}
