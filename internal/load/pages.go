package load

import (
	"bytes"
	"hash/maphash"
	"io"
	"net/http"
	"sync"

	"github.com/klauspost/compress/gzip"
)

// pageCache keeps the cacheable pages (those sent with an ETag) the run's
// people have read, decoded and with their elements, by the bytes as sent:
// in a rush thousands of people get the same cached page (the race page,
// 1,667 a second), and gunzipping and tokenizing it for each of them was a
// quarter of the generator's core in the opening. Each person still
// requests and reads the whole answer; only the generator's own reading of
// identical bytes is shared, so the server's work is unchanged.
type pageCache struct {
	mu   sync.Mutex
	seed maphash.Seed
	m    map[uint64]*sharedPage
}

// pageCacheMax bounds the pages kept; past it the cache starts again.
const pageCacheMax = 256

// sharedPage is one page's bytes as sent, decoded, and its elements.
type sharedPage struct {
	raw  []byte // as sent (gzip or identity)
	gzip bool
	body []byte
	once sync.Once
	els  []element
}

func (s *sharedPage) elements() []element {
	s.once.Do(func() { s.els = parseElements(s.body) })
	return s.els
}

// read reads res's whole body (at most 32 MiB), gunzipped, and for a page
// with an ETag the shared page it is, if any.
func (c *pageCache) read(res *http.Response) ([]byte, *sharedPage, error) {
	defer res.Body.Close()
	gz := res.Header.Get("Content-Encoding") == "gzip"
	if c == nil || res.Header.Get("Etag") == "" {
		body, err := decode(res.Body, gz)
		return body, nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(res.Body, 32<<20))
	if err != nil {
		return nil, nil, err
	}
	key := maphash.Bytes(c.seed, raw)
	c.mu.Lock()
	sp := c.m[key]
	c.mu.Unlock()
	if sp != nil && sp.gzip == gz && bytes.Equal(sp.raw, raw) {
		return sp.body, sp, nil
	}
	body, err := decode(bytes.NewReader(raw), gz)
	if err != nil {
		return nil, nil, err
	}
	sp = &sharedPage{raw: raw, gzip: gz, body: body}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= pageCacheMax {
		c.m = make(map[uint64]*sharedPage, pageCacheMax)
	}
	c.m[key] = sp
	c.mu.Unlock()
	return body, sp, nil
}

// decode reads r to its end (at most 32 MiB), gunzipping it if gz.
func decode(r io.Reader, gz bool) ([]byte, error) {
	r = io.LimitReader(r, 32<<20)
	if gz {
		zr, _ := gunzips.Get().(*gzip.Reader)
		var err error
		if zr == nil {
			zr, err = gzip.NewReader(r)
		} else {
			err = zr.Reset(r)
		}
		if err != nil {
			return nil, err
		}
		defer gunzips.Put(zr)
		r = zr
	}
	return io.ReadAll(r)
}

// gunzips are reused: a reader's window and tables were a twentieth of a
// busy generator's CPU, made anew for each page.
var gunzips sync.Pool
