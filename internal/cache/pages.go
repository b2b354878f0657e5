package cache

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/web"
)

// Pages serves an app's cached public pages. A page is named by a key (what
// it shows: a poll id and the viewer's zone, "public") and the version of
// the data it depends on. The page's bytes live in the shared cache (counted
// in --cache-bytes, built once across concurrent misses); this process also
// keeps the decoded page of each key at its latest version, so a hit is one
// map load and web.Page.Serve: no cache lookup, no decoding, no allocation.
// The decoded pages share their bytes with the in-process cache's entries;
// they are bounded by bytes too, for the pages the cache has let go.
type Pages struct {
	c        *Cache
	prefix   string
	ttl      time.Duration
	maxBytes int64
	bytes    atomic.Int64 // the kept pages' weight
	m        sync.Map     // key -> *pageEntry
}

type pageEntry struct {
	version int64
	page    *web.Page
	weight  int64
}

// DefaultMaxPageBytes bounds a Pages' decoded pages by default.
const DefaultMaxPageBytes = 32 << 20

// pageOverhead is what a kept page costs beyond its key and its bytes: the
// entry, the web.Page and its header values, the map's node.
const pageOverhead = 400

// NewPages makes the page cache of an app; prefix names it in the shared
// cache ("meet:page"), ttl is how long a page is kept there, maxBytes bounds
// the decoded pages kept in this process (0: DefaultMaxPageBytes).
func NewPages(c *Cache, prefix string, ttl time.Duration, maxBytes int64) *Pages {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxPageBytes
	}
	return &Pages{c: c, prefix: prefix, ttl: ttl, maxBytes: maxBytes}
}

// Render builds a page on a miss, and says how long the shared cache may
// keep it (0: the Pages' ttl).
type Render func(ctx context.Context) (*web.Page, time.Duration, error)

// Hit returns the decoded page of key at version, if this process has it.
func (p *Pages) Hit(key string, version int64) (*web.Page, bool) {
	if e, ok := p.m.Load(key); ok && e.(*pageEntry).version == version {
		return e.(*pageEntry).page, true
	}
	return nil, false
}

// Get returns the page of key at version: the decoded one kept here, else
// the shared cache's, else one rendered by render (once across concurrent
// callers of this process).
func (p *Pages) Get(ctx context.Context, key string, version int64, render Render) (*web.Page, error) {
	if pg, ok := p.Hit(key, version); ok {
		return pg, nil
	}
	b, err := p.c.Fetch(ctx, p.cacheKey(key, version), func(ctx context.Context) ([]byte, time.Duration, error) {
		pg, ttl, err := render(ctx)
		if err != nil {
			return nil, 0, err
		}
		if ttl <= 0 {
			ttl = p.ttl
		}
		return pg.Encode(), ttl, nil
	})
	if err != nil {
		return nil, err
	}
	pg, err := web.DecodePage(b)
	if err != nil {
		return nil, err
	}
	p.keep(key, version, pg)
	return pg, nil
}

// cacheKey is the shared cache's key of key's page at version.
func (p *Pages) cacheKey(key string, version int64) string {
	return p.prefix + ":" + key + "@" + strconv.FormatInt(version, 10)
}

// keep records pg as key's page at version, unless a newer one is kept.
func (p *Pages) keep(key string, version int64, pg *web.Page) {
	e := &pageEntry{version, pg, int64(len(key) + len(pg.ETag) + len(pg.Body) + len(pg.Gzip) + pageOverhead)}
	for {
		old, loaded := p.m.LoadOrStore(key, e)
		if !loaded {
			p.grow(key, e.weight)
			return
		}
		o := old.(*pageEntry)
		if o.version > version {
			return
		}
		if p.m.CompareAndSwap(key, old, e) {
			p.grow(key, e.weight-o.weight)
			if o.version != version {
				// Nobody asks for the old version again: its bytes leave
				// the shared cache now rather than at the end of its ttl.
				p.c.Drop(context.Background(), p.cacheKey(key, o.version))
			}
			return
		}
	}
}

// grow counts delta more bytes kept and evicts past the bound.
func (p *Pages) grow(key string, delta int64) {
	if p.bytes.Add(delta) > p.maxBytes {
		p.evict(key)
	}
}

// evict drops kept pages other than key's until they weigh under three
// quarters of the bound; which ones does not matter (they are in the shared
// cache still, or rendered again).
func (p *Pages) evict(except string) {
	p.m.Range(func(k, _ any) bool {
		if k.(string) != except {
			p.Forget(k.(string))
		}
		return p.bytes.Load() > p.maxBytes*3/4
	})
}

// Forget drops the kept page of key (a deleted thing's).
func (p *Pages) Forget(key string) {
	if old, ok := p.m.LoadAndDelete(key); ok {
		p.bytes.Add(-old.(*pageEntry).weight)
	}
}

// Bytes is the weight of the decoded pages kept.
func (p *Pages) Bytes() int64 { return p.bytes.Load() }

// Serve serves the page of key at version (see Get), answering a matching
// If-None-Match with 304. It returns the error of a miss's render for the
// caller to answer.
func (p *Pages) Serve(w http.ResponseWriter, r *http.Request, key string, version int64, render Render) error {
	pg, err := p.Get(r.Context(), key, version, render)
	if err != nil {
		return err
	}
	pg.Serve(w, r)
	return nil
}
