package web

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// minGzip is the size below which compressing costs more than it saves.
const minGzip = 1024

// gzipWriters compress pages rendered per request at the fastest level:
// cached pages are compressed once, at the best (NewPage).
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return zw
}}

var gzipBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// WriteBody writes a rendered body with status, gzip-compressed when the
// client accepts it and it is worth it. Responses are compressed here, where
// the whole body is known, rather than by a wrapping middleware: cached pages
// carry their compressed bytes already and must not pay for a wrapper.
func WriteBody(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h["Vary"] = vary
	if len(body) < minGzip || !acceptsGzip(r) || h.Get("Content-Encoding") != "" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			WriteWhole(w, r, body)
		}
		return
	}
	buf := gzipBufs.Get().(*bytes.Buffer)
	buf.Reset()
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(buf)
	zw.Write(body)
	zw.Close()
	gzipWriters.Put(zw)
	h["Content-Encoding"] = gzipEnc
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		WriteWhole(w, r, buf.Bytes())
	}
	if buf.Cap() < 1<<20 {
		gzipBufs.Put(buf)
	}
}

var (
	vary    = []string{"Accept-Encoding"}
	gzipEnc = []string{"gzip"}
)
