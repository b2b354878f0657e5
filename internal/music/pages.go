package music

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/tags"
	"github.com/tutti-dev/tutti/internal/web"
)

// render answers a page, or err's page.
func (a *App) render(w http.ResponseWriter, r *http.Request, p *page, err error) {
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, a.musicPage(p))
}

// visitor reports whether r is a visitor's first page (no user, no
// query): the page everyone gets alike, cached.
func visitor(r *http.Request) bool {
	return auth.UserFrom(r.Context()) == nil && r.URL.RawQuery == ""
}

// serveVisitor serves a visitor's page named key from the cache at music's
// version, building it on a miss. A visitor sees public posts only, so the
// page holds nothing a stranger may not see; a write anyone could see
// raises the version and the page is built again.
func (a *App) serveVisitor(w http.ResponseWriter, r *http.Request, key string, build func() (*page, error)) {
	ctx := r.Context()
	v, err := a.svc.VisitorVersion(ctx)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	err = a.pages.Serve(w, r, key, v, func(context.Context) (*web.Page, time.Duration, error) {
		p, err := build()
		if err != nil {
			return nil, 0, err
		}
		var buf bytes.Buffer
		if err := a.musicPage(p).Render(ctx, &buf); err != nil {
			return nil, 0, err
		}
		return web.NewPage("text/html; charset=utf-8", buf.Bytes(), ""), pageTTL, nil
	})
	if err != nil {
		a.Site.Error(w, r, err)
	}
}

// hot finds a visitor's page (its key from the path's wildcards; "" for a
// path that has none) in the cache at music's version, for the hot lane.
func (a *App) hot(key func(web.HotRequest) string) web.HotFunc {
	return func(ctx context.Context, req web.HotRequest) (*web.Page, bool) {
		k := key(req)
		if k == "" {
			return nil, false
		}
		v, err := a.svc.VisitorVersion(ctx)
		if err != nil {
			return nil, false
		}
		return a.pages.Hit(k, v)
	}
}

// The visitors' page keys of the pages with a wildcard ("": not a page).
func tagKey(s string) string {
	if k, ok := tags.Key(s); ok {
		return "tag:" + k
	}
	return ""
}

func personKey(name string) string {
	if name == "" || len(name) > 30 {
		return ""
	}
	return "u:" + strings.ToLower(name)
}

func postKey(s string) string {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 || strconv.FormatInt(id, 10) != s {
		return ""
	}
	return "p:" + s
}

// feedPage is a timeline page of f for u.
func feedPage(r *http.Request, u *auth.User, tab, title string, f *Feed) *page {
	p := &page{Title: title, Tab: tab, User: u, Posts: f.Posts, Unseen: f.Unseen}
	if f.Next != 0 {
		p.Older = r.URL.Path + "?before=" + itoa(f.Next)
	}
	return p
}
