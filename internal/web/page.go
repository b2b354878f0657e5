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

	hdr *pageHeader // header values made once per page, not per hit
}

// pageHeader holds a page's header values as the slices a header map keeps;
// a cached page is served many times, so they are shared (net/http only reads
// them).
type pageHeader struct {
	etag, contentType, lenBody, lenGzip []string
}

func (p *Page) header() *pageHeader {
	if p.hdr == nil {
		p.hdr = &pageHeader{
			etag: []string{p.ETag}, contentType: []string{p.ContentType},
			lenBody: []string{strconv.Itoa(len(p.Body))}, lenGzip: []string{strconv.Itoa(len(p.Gzip))},
		}
	}
	return p.hdr
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
	p := &Page{ETag: etag, ContentType: contentType, Body: body, Gzip: gz.Bytes()}
	p.header()
	return p
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
	p := &Page{ETag: string(f[0]), ContentType: string(f[1]), Body: f[2], Gzip: f[3]}
	p.header()
	return p, nil
}

// NotModified answers 304 and returns true if the request's If-None-Match
// matches etag; otherwise it sets the ETag header and returns false.
func NotModified(w http.ResponseWriter, r *http.Request, etag string) bool {
	return notModified(w, r, etag, []string{etag})
}

// notModified is NotModified with the ETag header's value made already.
func notModified(w http.ResponseWriter, r *http.Request, etag string, etagHeader []string) bool {
	h := w.Header()
	h["Etag"] = etagHeader
	h["Vary"] = vary
	if _, ok := h["Cache-Control"]; !ok {
		h["Cache-Control"] = noCache
	}
	if inm := r.Header["If-None-Match"]; len(inm) > 0 && etagMatch(strings.Join(inm, ","), etag) {
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
// precompressed bytes to clients that accept gzip. A hit allocates nothing
// of its own: this is the path of every cached page.
func (p *Page) Serve(w http.ResponseWriter, r *http.Request) {
	hv := p.header()
	if notModified(w, r, p.ETag, hv.etag) {
		return
	}
	h := w.Header()
	h["Content-Type"] = hv.contentType
	body, length := p.Body, hv.lenBody
	if len(p.Gzip) > 0 && acceptsGzip(r) {
		h["Content-Encoding"] = gzipEnc
		body, length = p.Gzip, hv.lenGzip
	}
	h["Content-Length"] = length
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		WriteWhole(w, r, body)
	}
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip
// (listed without q=0). It walks the header in place: no allocation.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header["Accept-Encoding"] {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			name, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") { // tokens are case-insensitive
				continue
			}
			key, q, _ := strings.Cut(params, "=")
			if !strings.EqualFold(strings.TrimSpace(key), "q") {
				return true
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(q), 64)
			return err == nil && f > 0
		}
	}
	return false
}
