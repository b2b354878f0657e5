package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tutti-dev/tutti/internal/files"
)

// Assets serves the files of an fs.FS under content-hashed names
// (app.css -> app.3f2a1b9c.css) with immutable cache headers, precompressed.
type Assets struct {
	prefix string            // URL prefix, e.g. /static/
	names  map[string]string // name -> hashed URL
	files  map[string]*Page  // hashed name -> file: its body, and its gzip bytes if smaller
}

// immutable is a hashed file's Cache-Control: its name changes with its bytes.
const immutable = "public, max-age=31536000, immutable"

// NewAssets reads every file of fsys once and serves it under prefix.
func NewAssets(fsys fs.FS, prefix string) (*Assets, error) {
	a := &Assets{prefix: prefix, names: map[string]string{}, files: map[string]*Page{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ext := path.Ext(p)
		hashed := strings.TrimSuffix(p, ext) + "." + hex.EncodeToString(sum[:5]) + ext
		ctype := mime.TypeByExtension(ext)
		if ctype == "" {
			ctype = http.DetectContentType(b)
		}
		f := &Page{ETag: `"` + hex.EncodeToString(sum[:8]) + `"`, ContentType: ctype, Body: b, Size: len(b), CacheControl: immutable}
		if strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") || strings.Contains(ctype, "svg") || strings.Contains(ctype, "json") {
			var gz bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
			zw.Write(b)
			zw.Close()
			if gz.Len() < len(b) {
				f.Gzip = gz.Bytes()
			}
		}
		f.header()
		a.names[p] = prefix + hashed
		a.files[hashed] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: assets: %w", err)
	}
	return a, nil
}

// Prefix is the URL prefix the files are served under, e.g. /static/.
func (a *Assets) Prefix() string { return a.prefix }

// URL returns the hashed URL of name; it panics on an unknown name, so that a
// typo fails the first render in tests rather than shipping a broken link.
func (a *Assets) URL(name string) string {
	u, ok := a.names[name]
	if !ok {
		panic("web: no asset " + name)
	}
	return u
}

// ServeHTTP serves a hashed file under the prefix (the route's pattern is
// the prefix): the gzip bytes to a client that takes them, if smaller.
func (a *Assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := a.files[strings.TrimPrefix(r.URL.Path, a.prefix)]
	if !ok {
		http.NotFound(w, r)
		return
	}
	f.Serve(w, r)
}

// Hot is the files' lookup for the site's hot lane, registered by
// Site.Static.
func (a *Assets) Hot(_ context.Context, req HotRequest) (*Page, bool) {
	f, ok := a.files[req.Args[0]]
	if !ok {
		return nil, false
	}
	return f, true
}

// Export writes every file under its hashed name into dir with the URL's
// layout (prefix /roar/static/ -> DIR/roar/static/roar.3f2a1b9c.css), plus,
// for the files served compressed, the same gzip bytes as NAME.gz, so that
// nginx (root DIR; gzip_static on) serves exactly what ServeHTTP serves.
// Files are written to a temporary name and renamed, so that a server
// reading DIR never sees half a file; directories are 0755 and files 0644,
// readable by nginx's workers. It returns the paths written, relative to dir.
func (a *Assets) Export(dir string) ([]string, error) {
	names := make([]string, 0, len(a.files))
	for name := range a.files {
		names = append(names, name)
	}
	sort.Strings(names)
	var written []string
	for _, name := range names {
		f := a.files[name]
		rel := path.Join(strings.TrimPrefix(a.prefix, "/"), name)
		if err := writeFile(dir, rel, f.Body); err != nil {
			return written, err
		}
		written = append(written, rel)
		if f.Gzip != nil {
			if err := writeFile(dir, rel+".gz", f.Gzip); err != nil {
				return written, err
			}
			written = append(written, rel+".gz")
		}
	}
	return written, nil
}

// writeFile writes b to dir/rel (a slash path) through a temporary file,
// readable by nginx's workers.
func writeFile(dir, rel string, b []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := files.WriteFile(context.Background(), p, bytes.NewReader(b), 0o755, 0o644); err != nil {
		return fmt.Errorf("web: export %s: %w", rel, err)
	}
	return nil
}

// Static serves a's files at its prefix, ahead of sessions (a signed-in
// page's style sheets would each load the session otherwise) and in the hot
// lane, cookies or not: a rush's first page and its files stay on the
// front. Register from an app's Routes, before the site serves.
func (s *Site) Static(a *Assets) {
	s.Early("GET "+a.prefix, a)
	s.HotAll("GET "+a.prefix+"{name}", a.Hot)
}
