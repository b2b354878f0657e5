package cache

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/web"
)

func newPages(t *testing.T, maxBytes int64) (*Pages, *Cache) {
	l := NewLocal(1 << 20)
	t.Cleanup(l.Close)
	c := New(l)
	return NewPages(c, "test:page", time.Minute, maxBytes), c
}

func TestPagesRenderOncePerVersion(t *testing.T) {
	p, c := newPages(t, 0)
	ctx := context.Background()
	renders := 0
	render := func(body string) Render {
		return func(context.Context) (*web.Page, time.Duration, error) {
			renders++
			return web.NewPage("text/plain", []byte(body), ""), 0, nil
		}
	}
	for range 3 {
		pg, err := p.Get(ctx, "k", 1, render("one"))
		if err != nil || string(pg.Body) != "one" {
			t.Fatalf("Get = %v, %v", pg, err)
		}
	}
	if renders != 1 {
		t.Fatalf("%d renders at one version, want 1", renders)
	}
	// The bytes are in the shared cache (counted there), under the version.
	if _, ok := c.Get(ctx, "test:page:k@1"); !ok {
		t.Fatal("page not in the shared cache")
	}
	// A new version is a new page at once; the old one is not served again.
	pg, _ := p.Get(ctx, "k", 2, render("two"))
	if string(pg.Body) != "two" || renders != 2 {
		t.Fatalf("after a bump: %q, %d renders", pg.Body, renders)
	}
	if _, ok := p.Hit("k", 1); ok {
		t.Fatal("old version still a hit")
	}
	if _, ok := c.Get(ctx, "test:page:k@1"); ok {
		t.Fatal("the old version's bytes stay in the shared cache")
	}
	// A slow reader that loaded an older version does not undo the newer.
	p.keep("k", 1, web.NewPage("text/plain", []byte("old"), ""))
	if pg, ok := p.Hit("k", 2); !ok || string(pg.Body) != "two" {
		t.Fatal("an older page replaced the newer one")
	}
	// A decoded page lost here is found again in the shared cache.
	p.Forget("k")
	if pg, _ := p.Get(ctx, "k", 2, render("three")); string(pg.Body) != "two" || renders != 2 {
		t.Fatalf("after Forget: %q, %d renders; want the shared cache's", pg.Body, renders)
	}
}

func TestPagesErrorNotKept(t *testing.T) {
	p, _ := newPages(t, 0)
	boom := errors.New("boom")
	_, err := p.Get(context.Background(), "k", 1, func(context.Context) (*web.Page, time.Duration, error) { return nil, 0, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if _, ok := p.Hit("k", 1); ok || p.Bytes() != 0 {
		t.Fatal("a failed render was kept")
	}
}

// The decoded pages are bounded by their bytes: a thousand pages of 4 KiB
// in a bound of 64 KiB keep at most 64 KiB, and every page is a hit just
// after its miss.
func TestPagesBounded(t *testing.T) {
	const bound = 64 << 10
	p, _ := newPages(t, bound)
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		k := strconv.Itoa(i)
		body := make([]byte, 4<<10) // random: gzip keeps it as it is
		for j := range body {
			body[j] = byte(rnd.Uint32())
		}
		if _, err := p.Get(context.Background(), k, 1, func(context.Context) (*web.Page, time.Duration, error) {
			return web.NewPage("text/plain", body, ""), 0, nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, ok := p.Hit(k, 1); !ok {
			t.Fatalf("page %s not kept just after its miss", k)
		}
	}
	n, sum := 0, int64(0)
	p.m.Range(func(_, v any) bool { n++; sum += v.(*pageEntry).weight; return true })
	if p.Bytes() > bound || sum != p.Bytes() || n < 8 || n > 16 {
		t.Fatalf("%d pages kept weighing %d (counted %d); want 8 to 16 pages, at most %d bytes", n, sum, p.Bytes(), bound)
	}
	// A new version of a kept page replaces its weight, not adds to it.
	var kept string
	p.m.Range(func(k, _ any) bool { kept = k.(string); return false })
	before := p.Bytes()
	p.keep(kept, 2, web.NewPage("text/plain", make([]byte, 0), ""))
	if p.Bytes() >= before {
		t.Fatalf("a smaller new version: %d bytes kept, before %d", p.Bytes(), before)
	}
}

// A hit serves the page, answers If-None-Match with 304, and allocates
// nothing of its own.
func TestPagesServeHit(t *testing.T) {
	p, _ := newPages(t, 0)
	render := func(context.Context) (*web.Page, time.Duration, error) {
		return web.NewPage("text/plain", []byte("hello"), `"e1"`), 0, nil
	}
	req := httptest.NewRequest("GET", "/", nil)
	w := httptest.NewRecorder()
	if err := p.Serve(w, req, "k", 7, render); err != nil || w.Code != 200 || w.Body.String() != "hello" || w.Header().Get("ETag") != `"e1"` {
		t.Fatalf("Serve: %v %d %q %q", err, w.Code, w.Body, w.Header().Get("ETag"))
	}
	req.Header.Set("If-None-Match", `"e1"`)
	w = httptest.NewRecorder()
	if err := p.Serve(w, req, "k", 7, render); err != nil || w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Fatalf("conditional GET: %v %d %q", err, w.Code, w.Body)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, ok := p.Hit("k", 7); !ok {
			t.Fatal("miss")
		}
	})
	if allocs != 0 {
		t.Fatalf("a hit allocates %v times", allocs)
	}
}
