package web

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
)

// Page is a rendered response kept in the cache with its ETag and its gzip
// bytes, so that a hit costs no rendering and no compression.
type Page struct {
	ETag        string
	ContentType string
	Body        []byte
	Gzip        []byte
}

// NewPage builds a cacheable page from body; etag may be empty (then it is a
// hash of the body).
func NewPage(contentType string, body []byte, etag string) *Page {
	if etag == "" {
		h := fnv.New64a()
		h.Write(body)
		etag = `"` + strconv.FormatUint(h.Sum64(), 36) + `"`
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(body)
	zw.Close()
	return &Page{ETag: etag, ContentType: contentType, Body: body, Gzip: gz.Bytes()}
}

// Encode serializes the page for a cache backend.
func (p *Page) Encode() []byte {
	var b []byte
	for _, f := range [][]byte{[]byte(p.ETag), []byte(p.ContentType), p.Body, p.Gzip} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b
}

// DecodePage is the inverse of Encode; the page's slices alias b.
func DecodePage(b []byte) (*Page, error) {
	var f [4][]byte
	for i := range f {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, errors.New("web: corrupt cached page")
		}
		f[i], b = b[k:k+int(n)], b[k+int(n):]
	}
	return &Page{ETag: string(f[0]), ContentType: string(f[1]), Body: f[2], Gzip: f[3]}, nil
}

// NotModified answers 304 and returns true if the request's If-None-Match
// matches etag; otherwise it sets the ETag header and returns false.
func NotModified(w http.ResponseWriter, r *http.Request, etag string) bool {
	h := w.Header()
	h["Etag"] = []string{etag}
	h["Vary"] = vary
	if _, ok := h["Cache-Control"]; !ok {
		h["Cache-Control"] = noCache
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	return false
}

var noCache = []string{"no-cache"}

func etagMatch(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == etag || t == "*" {
			return true
		}
	}
	return false
}

// Serve writes the page, answering conditional GETs with 304 and sending the
// precompressed bytes to clients that accept gzip.
func (p *Page) Serve(w http.ResponseWriter, r *http.Request) {
	if NotModified(w, r, p.ETag) {
		return
	}
	h := w.Header()
	h["Content-Type"] = []string{p.ContentType}
	body := p.Body
	if len(p.Gzip) > 0 && acceptsGzip(r) {
		h["Content-Encoding"] = gzipEnc
		body = p.Gzip
	}
	h["Content-Length"] = []string{strconv.Itoa(len(body))}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.TrimSpace(name) != "gzip" {
			continue
		}
		q, ok := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
		if !ok {
			return true
		}
		f, err := strconv.ParseFloat(q, 64)
		return err == nil && f > 0
	}
	return false
}
