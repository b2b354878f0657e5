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
type Pages struct {
	c      *Cache
	prefix string
	ttl    time.Duration
	max    int64
	n      atomic.Int64
	m      sync.Map // key -> *pageEntry
}

type pageEntry struct {
	version int64
	page    *web.Page
}

// DefaultMaxPages bounds how many decoded pages a Pages keeps by default.
const DefaultMaxPages = 4096

// NewPages makes the page cache of an app; prefix names it in the shared
// cache ("meet:page"), ttl is how long a page is kept there, max bounds the
// decoded pages kept in this process (0: DefaultMaxPages).
func NewPages(c *Cache, prefix string, ttl time.Duration, max int) *Pages {
	if max <= 0 {
		max = DefaultMaxPages
	}
	return &Pages{c: c, prefix: prefix, ttl: ttl, max: int64(max)}
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
	b, err := p.c.Fetch(ctx, p.prefix+":"+key+"@"+strconv.FormatInt(version, 10), func(ctx context.Context) ([]byte, time.Duration, error) {
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

// keep records pg as key's page at version, unless a newer one is kept.
func (p *Pages) keep(key string, version int64, pg *web.Page) {
	e := &pageEntry{version, pg}
	for {
		old, loaded := p.m.LoadOrStore(key, e)
		if !loaded {
			if p.n.Add(1) > p.max {
				p.evict(key)
			}
			return
		}
		if old.(*pageEntry).version > version || p.m.CompareAndSwap(key, old, e) {
			return
		}
	}
}

// evict drops kept pages other than key's until the count is under max
// again; which ones does not matter (they are in the shared cache still).
func (p *Pages) evict(except string) {
	p.m.Range(func(k, _ any) bool {
		if k.(string) != except {
			if _, ok := p.m.LoadAndDelete(k); ok {
				p.n.Add(-1)
			}
		}
		return p.n.Load() > p.max*3/4
	})
}

// Forget drops the kept page of key (a deleted thing's).
func (p *Pages) Forget(key string) {
	if _, ok := p.m.LoadAndDelete(key); ok {
		p.n.Add(-1)
	}
}

// Len is the number of decoded pages kept.
func (p *Pages) Len() int { return int(p.n.Load()) }

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
