package roar

import (
	"bytes"
	"context"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/web"
)

// stream is the live timeline as Server-Sent Events: new roars (event
// "roar", with the roar's id as the event id), like and reply counts
// ("like", "counts") and deletions ("delete"). A client that reconnects sends
// Last-Event-ID (or ?after= the newest roar it has) and first gets what it
// missed, from the database, so that no roar is lost across a drop.
// ?feed=home keeps to the people the viewer follows; ?thread=ID (a thread
// page) to the replies to roar ID, with the counts of every roar. Pages get
// a new roar as its rendered article; ?format=json gets it as the API's
// Roar instead.
func (a *App) stream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	after, err := lastEventID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	q := r.URL.Query()
	thread, err := checkFeed(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	s := live.Stream[Event]{After: after, Form: formPage}
	if q.Get("format") == "json" {
		s.Form = formAPI
	}
	feed := q.Get("feed")
	if s.Filter, err = a.svc.StreamFilter(ctx, auth.UserFrom(ctx), feed, thread); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if feed != "none" {
		s.Backlog = func(ctx context.Context, after int64, send func(*Event)) error {
			backlog, err := a.svc.Backlog(ctx, after, thread)
			if err != nil {
				return err
			}
			for i := range backlog {
				send(a.dress(ctx, roarEvent(&backlog[i])))
			}
			if thread != 0 && len(backlog) > 0 {
				// Replies missed, so their "counts" too: the thread's now.
				root, err := a.svc.Roar(ctx, thread)
				if err != nil {
					return err
				}
				send(a.dress(ctx, &Event{Type: "counts", ID: thread, Likes: root.Likes, of: root}))
			}
			return nil
		}
	}
	if err := a.hub.Serve(w, r, s); err != nil {
		a.Site.Error(w, r, err)
	}
}

func lastEventID(r *http.Request) (int64, error) {
	s := r.Header.Get("Last-Event-ID")
	if s == "" {
		s = r.URL.Query().Get("after")
	}
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errs.BadQuery("after", "a roar id (a positive whole number)")
	}
	return n, nil
}

// checkFeed refuses a ?feed=, ?format= or ?thread= the stream does not
// know, and returns the thread (0: none).
func checkFeed(r *http.Request) (int64, error) {
	q := r.URL.Query()
	switch q.Get("feed") {
	case "", "public", "home", "none":
	default:
		return 0, errs.BadQuery("feed", "public, home or none")
	}
	switch q.Get("format") {
	case "", "json":
	default:
		return 0, errs.BadQuery("format", "json (or absent, for pages)")
	}
	return web.QueryID(r, "thread")
}

// livePoll is the fallback when the stream is down: the roars after ?since=
// as HTML articles, oldest first (at most 200), for the page's script.
func (a *App) livePoll(w http.ResponseWriter, r *http.Request) {
	since, err := web.QueryID(r, "since")
	var thread int64
	if err == nil {
		thread, err = checkFeed(r)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	ctx := r.Context()
	feed, err := a.svc.Live(ctx, auth.UserFrom(ctx), since, r.URL.Query().Get("feed") == "home", thread)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	roars, v := feed.Roars, feed.Viewer
	var buf bytes.Buffer
	for i := range roars {
		if !v.Rel.Hides(&roars[i]) {
			if err := roarArticle(&roars[i], v, "").Render(ctx, &buf); err != nil {
				a.Site.Error(w, r, err)
				return
			}
		}
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(buf.Bytes())
}

// announce is the Service's publish: it dresses e for the streams and sends
// it on the bus, to the streams of every instance. The Service calls it only
// after the write is committed: a client that hears of a roar can read it.
func (a *App) announce(ctx context.Context, e *Event) {
	if err := a.hub.Publish(a.dress(ctx, e)); err != nil {
		a.Log.Warn("roar: publish", "type", e.Type, "id", e.ID, "err", err)
	}
}

// dress adds to an event what the streams show of its roar: a new roar's
// article, rendered once for every viewer (pages), and its API form (feeds
// with ?format=json, the counts of a "counts" event).
func (a *App) dress(ctx context.Context, e *Event) *Event {
	if e.of == nil {
		return e
	}
	if e.Type == "roar" {
		var buf bytes.Buffer
		if err := roarArticle(e.of, nil, "").Render(ctx, &buf); err != nil {
			a.Log.Error("roar: render event", "err", err)
		}
		e.HTML = buf.String()
	}
	e.Roar = apiRoar(e.of, nil)
	return e
}
