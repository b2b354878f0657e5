package roar

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/tags"
	"github.com/tutti-dev/tutti/internal/web"
)

// publicPage is everyone's newest roars. For visitors the whole page is
// cached at the current version, with its ETag and gzip bytes.
func (a *App) publicPage(w http.ResponseWriter, r *http.Request) {
	before, err := web.QueryID(r, "before")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := auth.UserFrom(r.Context())
	if u == nil && before == 0 {
		a.servePage(w, r, "page:public", func() (*page, error) { return a.timelineView(r, nil, "public", Query{}) })
		return
	}
	p, err := a.timelineView(r, u, "public", Query{Before: before})
	a.render(w, r, p, err)
}

func (a *App) homePage(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	p, err := a.homeView(r, u)
	a.render(w, r, p, err)
}

func (a *App) homeView(r *http.Request, u *auth.User) (*page, error) {
	before, err := web.QueryID(r, "before")
	if err != nil {
		return nil, err
	}
	return a.timelineView(r, u, "home", Query{Home: u.ID, Before: before})
}

func (a *App) tagPage(w http.ResponseWriter, r *http.Request) {
	p, err := a.tagView(r, auth.UserFrom(r.Context()), r.PathValue("tag"))
	a.render(w, r, p, err)
}

// tagView is the page of the roars tagged tag (as in the path: any case).
func (a *App) tagView(r *http.Request, u *auth.User, tag string) (*page, error) {
	tag, ok := tags.Key(tag)
	if !ok {
		return nil, errs.ErrNotFound
	}
	before, err := web.QueryID(r, "before")
	if err != nil {
		return nil, err
	}
	p, err := a.timelineView(r, u, "tag", Query{Tag: tag, Before: before})
	if p != nil {
		p.Tag, p.Title = tag, "#"+tag
	}
	return p, err
}

func (a *App) profilePage(w http.ResponseWriter, r *http.Request) {
	p, err := a.profileView(r, auth.UserFrom(r.Context()), r.PathValue("name"))
	a.render(w, r, p, err)
}

// profileView is the page of the user named name: their profile and roars.
func (a *App) profileView(r *http.Request, u *auth.User, name string) (*page, error) {
	prof, err := a.svc.Profile(r.Context(), u, name)
	if err != nil {
		return nil, err
	}
	before, err := web.QueryID(r, "before")
	if err != nil {
		return nil, err
	}
	p, err := a.timelineView(r, u, "profile", Query{Author: prof.ID, Before: before})
	if p != nil {
		p.Profile, p.Title, p.Live, p.Compose = prof, prof.Name()+" (@"+prof.Username+")", "", nil
	}
	return p, err
}

func (a *App) threadPage(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	focus, err := a.svc.Roar(r.Context(), id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if focus.RepostOf != nil {
		http.Redirect(w, r, roarURL(focus.RepostOf.ID), http.StatusMovedPermanently)
		return
	}
	after, err := web.QueryID(r, "after")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p, err := a.threadView(r, auth.UserFrom(r.Context()), focus, after)
	if p != nil && r.URL.Query().Get("reported") == "1" {
		p.Flash = "Thank you: the moderators will look at this roar."
	}
	a.render(w, r, p, err)
}

// threadView loads focus's thread page for u (nil: a visitor), from the
// reply after after. The page listens to the thread's live stream: new
// replies and the counts (its "N replies" too) change as others reply.
func (a *App) threadView(r *http.Request, u *auth.User, focus *Roar, after int64) (*page, error) {
	th, err := a.svc.Thread(r.Context(), u, focus, after)
	if err != nil {
		return nil, err
	}
	p := &page{Title: "Roar by @" + focus.Author.Username, Tab: "thread", Viewer: th.Viewer, Focus: focus, Above: th.Above,
		Roars: th.Replies, Live: "public"}
	if th.Next != 0 {
		p.Older = roarURL(focus.ID) + "?after=" + itoa(th.Next)
	}
	if u != nil {
		p.Compose = &compose{ReplyTo: focus.ID, Prompt: "Reply to @" + focus.Author.Username, Body: "@" + focus.Author.Username + " ",
			From: roarURL(focus.ID)}
		if focus.Author.ID == u.ID {
			p.Compose.Body = ""
		}
	}
	return p, nil
}

// timelineView loads a timeline page for u (nil: a visitor).
func (a *App) timelineView(r *http.Request, u *auth.User, tab string, q Query) (*page, error) {
	feed, err := a.svc.Timeline(r.Context(), u, q)
	if err != nil {
		return nil, err
	}
	p := &page{Title: "roar", Tab: tab, Viewer: feed.Viewer, Roars: feed.Roars}
	if feed.Next != 0 {
		p.Older = r.URL.Path + "?before=" + itoa(feed.Next)
	}
	if q.Before == 0 && (tab == "public" || tab == "home") {
		p.Live = tab
	}
	if tab != "profile" {
		p.Trending = a.svc.Trending()
	}
	if u != nil && tab != "profile" {
		p.Compose = &compose{Prompt: "What is happening?", From: r.URL.RequestURI()}
		if tab == "tag" {
			p.Compose.Body = "#" + q.Tag + " "
		}
	}
	if tab == "home" {
		p.Title = "Home · roar"
	}
	return p, nil
}

func (a *App) render(w http.ResponseWriter, r *http.Request, p *page, err error) {
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, a.timelinePage(p))
}

// servePage serves a page that is the same for every visitor from the cache
// at the current version, building it on a miss.
func (a *App) servePage(w http.ResponseWriter, r *http.Request, name string, build func() (*page, error)) {
	a.serveCached(w, r, name, "text/html; charset=utf-8", func() ([]byte, error) {
		p, err := build()
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := a.timelinePage(p).Render(r.Context(), &buf); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	})
}

// hot finds the visitors' page name (see serveCached) in the cache at the
// current version: the site's hot lane serves it with no handler in between.
func (a *App) hot(name string) web.HotFunc {
	return func(ctx context.Context, _ web.HotRequest) (*web.Page, bool) {
		v, err := a.visitorVersion(ctx)
		if err != nil {
			return nil, false
		}
		return a.pages.Hit(name, v)
	}
}

// serveCached serves visitors bytes built by build, cached at the visitors'
// version as a web.Page (ETag, gzip; cache.Pages): a hit costs no query, no
// rendering, no compression, no decoding.
func (a *App) serveCached(w http.ResponseWriter, r *http.Request, name, contentType string, build func() ([]byte, error)) {
	ctx := r.Context()
	v, err := a.visitorVersion(ctx)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	err = a.pages.Serve(w, r, name, v, func(context.Context) (*web.Page, time.Duration, error) {
		body, err := build()
		if err != nil {
			return nil, 0, err
		}
		return web.NewPage(contentType, body, ""), versionTTL, nil
	})
	if err != nil {
		a.Site.Error(w, r, err)
	}
}
