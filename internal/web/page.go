package web

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
)

// Page is a rendered response kept in the cache with its ETag and its gzip
// bytes, so that a hit costs no rendering and no compression. A page that
// compresses keeps only its gzip bytes (almost every client accepts gzip; a
// page is several times its gzip): the rare client that does not gets them
// inflated as they are sent.
type Page struct {
	ETag        string
	ContentType string
	// Body is the identity bytes, nil when only Gzip is kept; Gzip the gzip
	// bytes, nil when they would not be smaller. A page may keep both
	// (static files, made once): a client that refuses gzip then gets Body
	// without inflating. Encode keeps the gzip bytes alone.
	Body, Gzip []byte
	Size       int // the identity bytes' length
	// CacheControl is the page's Cache-Control ("": no-cache, revalidated
	// by its ETag). Not kept by Encode: a page a cache backend holds is
	// no-cache.
	CacheControl string

	hdr   *pageHeader               // header values made once per page, not per hit
	front [8]atomic.Pointer[[]byte] // the front's header blocks (frontHeader)
}

// pageHeader holds a page's header values as the slices a header map keeps;
// a cached page is served many times, so they are shared (net/http only reads
// them).
type pageHeader struct {
	etag, contentType, lenBody, lenGzip, cacheControl []string
}

func (p *Page) header() *pageHeader {
	if p.hdr == nil {
		p.hdr = &pageHeader{
			etag: []string{p.ETag}, contentType: []string{p.ContentType},
			lenBody: []string{strconv.Itoa(p.Size)}, lenGzip: []string{strconv.Itoa(len(p.Gzip))},
		}
		if p.CacheControl != "" {
			p.hdr.cacheControl = []string{p.CacheControl}
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
	p := &Page{ETag: etag, ContentType: contentType, Size: len(body)}
	var gz bytes.Buffer
	zw, _ := pageGzips.Get().(*gzip.Writer)
	if zw == nil {
		zw, _ = gzip.NewWriterLevel(&gz, pageLevel)
	} else {
		zw.Reset(&gz)
	}
	zw.Write(body)
	zw.Close()
	pageGzips.Put(zw)
	if gz.Len() < len(body) {
		p.Gzip = bytes.Clone(gz.Bytes()) // its own size: cached for long
	} else {
		p.Body = body
	}
	p.header()
	return p
}

// pageGzips are the writers of NewPage: one allocates about a megabyte,
// which a render per page version would make garbage.
var pageGzips sync.Pool

// pageLevel is NewPage's compression: a page is built on a miss, once per
// version, and in meet and roar a version lasts until the next write, so
// its cost counts as much as its size. klauspost's level 7 against the
// standard library's best (9), on a real poll page (28 KB) and roar's
// newest 200 (333 KB): 367 -> 116 us and 2.38 -> 0.76 ms, for 4.6 % and
// 1.1 % more bytes (BenchmarkNewPage).
const pageLevel = 7

// Bytes returns the page's identity bytes (inflated if only gzip is kept).
func (p *Page) Bytes() []byte {
	if p.Body != nil || p.Gzip == nil {
		return p.Body
	}
	var b bytes.Buffer
	p.inflate(&b)
	return b.Bytes()
}

// Encode serializes the page for a cache backend, in one allocation of
// exactly its size (a backend keeps it as it is).
func (p *Page) Encode() []byte {
	body := p.Body
	if p.Gzip != nil {
		body = nil // a page keeping both is kept as its gzip bytes
	}
	fields := [...][]byte{[]byte(p.ETag), []byte(p.ContentType), body, p.Gzip}
	n := binary.MaxVarintLen64
	for _, f := range fields {
		n += binary.MaxVarintLen64 + len(f)
	}
	b := make([]byte, 0, n)
	b = binary.AppendUvarint(b, uint64(p.Size))
	for _, f := range fields {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	return b[:len(b):len(b)]
}

// DecodePage is the inverse of Encode; the page's slices alias b.
func DecodePage(b []byte) (*Page, error) {
	size, k := binary.Uvarint(b)
	if k <= 0 || size > 1<<40 {
		return nil, errCorruptPage
	}
	b = b[k:]
	var f [4][]byte
	for i := range f {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, errCorruptPage
		}
		f[i], b = b[k:k+int(n)], b[k+int(n):]
	}
	p := &Page{ETag: string(f[0]), ContentType: string(f[1]), Size: int(size)}
	if len(f[2]) > 0 || len(f[3]) == 0 {
		p.Body = f[2]
	}
	if len(f[3]) > 0 {
		p.Gzip = f[3]
	}
	if (p.Gzip == nil && len(p.Body) != p.Size) || (p.Gzip != nil && p.Body != nil) {
		return nil, errCorruptPage
	}
	p.header()
	return p, nil
}

var errCorruptPage = errors.New("web: corrupt cached page")

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
	body, gz := p.headers(w, r)
	switch {
	case !body:
	case gz:
		WriteWhole(w, r, p.Gzip)
	case p.Body != nil:
		WriteWhole(w, r, p.Body)
	default:
		p.inflate(w)
	}
}

// headers sets the page's headers for r and writes the status (304 or 200);
// it reports whether a body follows, and whether it is the gzip bytes.
func (p *Page) headers(w http.ResponseWriter, r *http.Request) (body, gz bool) {
	hv := p.header()
	if hv.cacheControl != nil {
		w.Header()["Cache-Control"] = hv.cacheControl
	}
	if notModified(w, r, p.ETag, hv.etag) {
		return false, false
	}
	h := w.Header()
	h["Content-Type"] = hv.contentType
	if p.Gzip == nil || !acceptsGzip(r) {
		h["Content-Length"] = hv.lenBody
	} else {
		h["Content-Encoding"] = gzipEnc
		h["Content-Length"] = hv.lenGzip
		gz = true
	}
	w.WriteHeader(http.StatusOK)
	return r.Method != http.MethodHead, gz
}

// gzipReaders are reused for the rare client that does not accept gzip.
var gzipReaders sync.Pool

// inflate writes the page's identity bytes, inflating its gzip bytes.
func (p *Page) inflate(w io.Writer) {
	zr, _ := gzipReaders.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(bytes.NewReader(p.Gzip))
	} else {
		err = zr.Reset(bytes.NewReader(p.Gzip))
	}
	if err != nil { // our own bytes: cannot happen but for memory corruption
		panic(err)
	}
	io.Copy(w, zr)
	gzipReaders.Put(zr)
}

// acceptsGzip reports whether the request's Accept-Encoding allows gzip
// (listed without q=0). It walks the header in place: no allocation.
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header["Accept-Encoding"] {
		if found, ok := gzipToken(v); found {
			return ok
		}
	}
	return false
}

// gzipToken looks for gzip in one Accept-Encoding value: found if it is
// listed, ok if it is allowed (not q=0). The first gzip listed decides.
func gzipToken(v string) (found, ok bool) {
	for v != "" {
		var part string
		part, v, _ = strings.Cut(v, ",")
		name, params, _ := strings.Cut(part, ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") { // tokens are case-insensitive
			continue
		}
		key, q, _ := strings.Cut(params, "=")
		if !strings.EqualFold(strings.TrimSpace(key), "q") {
			return true, true
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(q), 64)
		return true, err == nil && f > 0
	}
	return false, false
}
