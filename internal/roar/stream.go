package roar

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// heartbeat keeps idle streams (and the proxies in between) open.
const heartbeat = 25 * time.Second

// stream is the live timeline as Server-Sent Events: new roars (event
// "roar", with the roar's id as the event id), like and reply counts
// ("like", "counts") and deletions ("delete"). A client that reconnects sends
// Last-Event-ID (or ?after= the newest roar it has) and first gets what it
// missed, from the database, so that no roar is lost across a drop.
// ?feed=home keeps to the people the viewer follows. Pages get a new roar as
// its rendered article; ?format=json gets it as the API's Roar instead.
func (a *App) stream(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	// Streams outlive the server's read timeout.
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	after, err := lastEventID(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	q := r.URL.Query()
	if err := checkFeed(q); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	api := q.Get("format") == "json"
	data := func(d delivery) []byte {
		if api {
			return d.api
		}
		return d.page
	}
	f := &filter{quiet: q.Get("feed") == "none"}
	if u := auth.UserFrom(ctx); u != nil {
		f.me = u.ID
		if f.rel, err = a.store.Relations(ctx, u.ID); err != nil {
			a.Site.Error(w, r, err)
			return
		}
		if r.URL.Query().Get("feed") == "home" {
			if f.follows, err = a.store.Following(ctx, u.ID); err != nil {
				a.Site.Error(w, r, err)
				return
			}
			f.follows[u.ID] = true
		}
	}
	// Join the hub before reading the backlog, so nothing falls in between;
	// roars already sent from the backlog are skipped when they come live.
	c := a.hub.add()
	defer a.hub.remove(c)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	// The response writer buffers; each round of events is flushed once.
	io.WriteString(w, "retry: 2000\n\n")
	sent := after
	if after > 0 && !f.quiet {
		backlog, err := a.store.Timeline(ctx, Query{Since: after, Limit: 500})
		if err != nil {
			return
		}
		for i := range backlog {
			if e := a.roarEvent(ctx, &backlog[i]); f.pass(e) {
				writeEvent(w, e, data(newDelivery(e)))
			}
			sent = backlog[i].ID
		}
	}
	if rc.Flush() != nil {
		return
	}
	// writeRound writes a round (nil: a ping) and any queued behind it, and
	// flushes them in one write.
	writeRound := func(round []delivery) (err error) {
		held := web.Hold(r)
		defer func() {
			if rerr := held.Release(); err == nil {
				err = rerr
			}
		}()
		if round == nil {
			io.WriteString(w, ": ping\n\n")
		}
		for more := round != nil; more; {
			for _, d := range round {
				if f.pass(d.e) && !(d.e.Type == "roar" && d.e.ID <= sent) {
					writeEvent(w, d.e, data(d))
				}
			}
			select {
			case round = <-c.ch:
			default:
				more = false
			}
		}
		return rc.Flush()
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		var round []delivery
		select {
		case round = <-c.ch:
		case <-tick.C:
		case <-c.gone:
			return
		case <-ctx.Done():
			return
		}
		// A client that stops reading is cut off instead of holding the
		// stream (and its buffer) forever; it reconnects and catches up.
		rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
		if writeRound(round) != nil {
			return
		}
	}
}

// streamWriteTimeout is how long a stream's write may wait for its client.
const streamWriteTimeout = 30 * time.Second

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

// checkFeed refuses a ?feed= or ?format= the stream does not know.
func checkFeed(q url.Values) error {
	switch q.Get("feed") {
	case "", "public", "home", "none":
	default:
		return errs.BadQuery("feed", "public, home or none")
	}
	switch q.Get("format") {
	case "", "json":
	default:
		return errs.BadQuery("format", "json (or absent, for pages)")
	}
	return nil
}

func writeEvent(w io.Writer, e *Event, data []byte) {
	if e.Type == "roar" {
		io.WriteString(w, "id: "+strconv.FormatInt(e.ID, 10)+"\n")
	}
	io.WriteString(w, "event: "+e.Type+"\ndata: ")
	w.Write(data)
	io.WriteString(w, "\n\n")
}

// filter is what one stream shows: not the authors the viewer does not see,
// on the home feed only the people they follow, and only the viewer's own
// "notify" events (feed=none: only those, for a page without a timeline).
type filter struct {
	rel     *Relations
	follows map[int64]bool // nil: everyone
	me      int64          // the viewer (0: a visitor)
	quiet   bool           // feed=none
}

func (f *filter) pass(e *Event) bool {
	if e.Type == "notify" {
		return f.me != 0 && e.ID == f.me
	}
	if f.quiet {
		return false
	}
	if e.Type != "roar" {
		return true
	}
	if f.rel != nil && (f.rel.Hidden[e.Author] || (e.Origin != 0 && f.rel.Hidden[e.Origin])) {
		return false
	}
	return f.follows == nil || f.follows[e.Author]
}

// livePoll is the fallback when the stream is down: the roars after ?since=
// as HTML articles, oldest first (at most 200), for the page's script.
func (a *App) livePoll(w http.ResponseWriter, r *http.Request) {
	since, err := queryID(r, "since")
	if err == nil {
		err = checkFeed(r.URL.Query())
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	ctx := r.Context()
	q := Query{Since: since, Limit: pageSize}
	u := auth.UserFrom(ctx)
	if u != nil && r.URL.Query().Get("feed") == "home" {
		q.Home = u.ID
	}
	roars, err := a.store.Timeline(ctx, q)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	v, err := a.viewerOf(ctx, u, roars)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
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
