package roar

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// The compose form says which page it is on (its hidden "from": that
// page's path and query), so that a post goes back there, and a refused
// one comes back on that page with what was typed: a tag page, a profile,
// a thread, home or everyone's timeline.

// origin is the roar page from names (a same-site path and query, as the
// compose form carries it), parsed; nil if from is not one of roar's
// pages (or not a same-site path at all: never a redirect elsewhere).
func origin(from string) *url.URL {
	if web.LocalPath(from) == "" {
		return nil
	}
	u, err := url.Parse(from)
	if err != nil || originKind(u.Path) == "" {
		return nil
	}
	return &url.URL{Path: u.Path, RawQuery: u.RawQuery}
}

// originKind is which roar page path is ("" if none), as Routes mounts
// them: public, home, tag, profile or thread.
func originKind(path string) string {
	rest, ok := strings.CutPrefix(path, "/roar/")
	switch {
	case !ok:
		return ""
	case rest == "":
		return "public"
	case rest == "home":
		return "home"
	}
	head, arg, ok := strings.Cut(rest, "/")
	if !ok || arg == "" || strings.Contains(arg, "/") {
		return ""
	}
	switch head {
	case "tags":
		return "tag"
	case "u":
		return "profile"
	case "r":
		return "thread"
	}
	return ""
}

// originView is the page at from (origin) as u sees it, built as its own
// handler builds it; the public timeline when from is nil, or when that
// page is not there (a roar deleted meanwhile, a user gone).
func (a *App) originView(r *http.Request, u *auth.User, from *url.URL) (*page, error) {
	if from == nil {
		from = &url.URL{Path: "/roar/"}
	}
	o := r.Clone(r.Context())
	o.Method, o.URL, o.RequestURI = http.MethodGet, from, from.RequestURI()
	arg := from.Path[strings.LastIndexByte(from.Path, '/')+1:]
	var p *page
	var err error
	switch originKind(from.Path) {
	case "home":
		p, err = a.homeView(o, u)
	case "tag":
		p, err = a.tagView(o, u, arg)
	case "profile":
		p, err = a.profileView(o, u, arg)
	case "thread":
		err = errs.ErrNotFound
		if id, perr := strconv.ParseInt(arg, 10, 64); perr == nil && id > 0 {
			var focus *Roar
			if focus, err = a.svc.Roar(o.Context(), id); err == nil {
				p, err = a.threadView(o, u, focus, 0)
			}
		}
	default:
		var before int64
		if before, err = web.QueryID(o, "before"); err == nil {
			p, err = a.timelineView(o, u, "public", Query{Before: before})
		}
	}
	if k := errs.KindOf(err); from.Path != "/roar/" && (k == errs.NotFound || k == errs.Invalid || k == errs.Forbidden) {
		return a.originView(r, u, nil)
	}
	return p, err
}
