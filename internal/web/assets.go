package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

// Assets serves the files of an fs.FS under content-hashed names
// (app.css -> app.3f2a1b9c.css) with immutable cache headers, precompressed.
type Assets struct {
	prefix string            // URL prefix, e.g. /static/
	names  map[string]string // name -> hashed URL
	files  map[string]*asset // hashed name -> file
}

type asset struct {
	ctype    string
	body, gz []byte
}

// NewAssets reads every file of fsys once and serves it under prefix.
func NewAssets(fsys fs.FS, prefix string) (*Assets, error) {
	a := &Assets{prefix: prefix, names: map[string]string{}, files: map[string]*asset{}}
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
		f := &asset{ctype: ctype, body: b}
		if strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") || strings.Contains(ctype, "svg") || strings.Contains(ctype, "json") {
			var gz bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
			zw.Write(b)
			zw.Close()
			f.gz = gz.Bytes()
		}
		a.names[p] = prefix + hashed
		a.files[hashed] = f
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("web: assets: %w", err)
	}
	return a, nil
}

// URL returns the hashed URL of name; it panics on an unknown name, so that a
// typo fails the first render in tests rather than shipping a broken link.
func (a *Assets) URL(name string) string {
	u, ok := a.names[name]
	if !ok {
		panic("web: no asset " + name)
	}
	return u
}

// ServeHTTP serves a hashed file; the route must strip the prefix.
func (a *Assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := a.files[strings.TrimPrefix(r.URL.Path, a.prefix)]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("Vary", "Accept-Encoding")
	body := f.body
	if f.gz != nil && acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		body = f.gz
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}
