package live

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// heartbeat keeps idle streams (and the proxies in between) open.
const heartbeat = 25 * time.Second

// writeTimeout is how long a stream's write may wait for its client.
const writeTimeout = 30 * time.Second

// Stream is what one stream shows.
type Stream[E any] struct {
	// Key selects the events: those whose Options.Key is this.
	Key string
	// Form is the index of the encoding written (Message.Data).
	Form int
	// After is the id of the last event the client has (Last-Event-ID); 0:
	// none, so no backlog.
	After int64
	// Filter, when set, says whether this stream shows e.
	Filter func(e *E) bool
	// Backlog, when set, sends the events after the id after, oldest first,
	// from the database, for a client that reconnects (After > 0). The
	// stream has joined the hub already, so nothing falls in between; a live
	// event with an id the backlog sent is skipped.
	Backlog func(ctx context.Context, after int64, send func(e *E)) error
}

func (s *Stream[E]) pass(e *E) bool { return s.Filter == nil || s.Filter(e) }

// ErrTooMany refuses a stream past Group.Max.
var ErrTooMany = errs.Slow(10*time.Second, "Too many live updates are open on this server; try again shortly.")

// Serve answers r with the stream s until the client goes, stops reading,
// or the hub shuts down; each round is written in one write (web.Hold).
// Check the request before. Serve returns an error only if it wrote nothing
// (ErrTooMany): answer it with the app's error page.
func (h *Hub[E]) Serve(w http.ResponseWriter, r *http.Request, s Stream[E]) error {
	if !h.g.acquire() {
		return ErrTooMany
	}
	defer h.g.release()
	ctx := r.Context()
	rc := http.NewResponseController(w)
	// Streams outlive the server's read timeout.
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	// Join the hub before reading the backlog, so nothing falls in between.
	c := h.add(s.Key)
	defer h.remove(s.Key, c)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	// The response writer buffers; each round of events is flushed once.
	io.WriteString(w, "retry: 2000\n\n")
	sent := s.After
	if s.After > 0 && s.Backlog != nil {
		err := s.Backlog(ctx, s.After, func(e *E) {
			m := h.o.Encode(e)
			if s.pass(e) {
				writeMessage(w, &m, s.Form)
			}
			sent = max(sent, m.ID)
		})
		if err != nil {
			return nil
		}
	}
	if rc.Flush() != nil {
		return nil
	}
	// writeRound writes a round (nil: a ping) and any queued behind it, and
	// flushes them in one write.
	writeRound := func(round []delivery[E]) (err error) {
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
			for i := range round {
				d := &round[i]
				if s.pass(d.e) && !(d.m.ID != 0 && d.m.ID <= sent) {
					writeMessage(w, &d.m, s.Form)
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
		var round []delivery[E]
		select {
		case round = <-c.ch:
		case <-tick.C:
		case <-c.gone:
			return nil
		case <-ctx.Done():
			return nil
		}
		// A client that stops reading is cut off instead of holding the
		// stream (and its buffer) forever; it reconnects and catches up.
		rc.SetWriteDeadline(time.Now().Add(writeTimeout))
		if writeRound(round) != nil {
			return nil
		}
	}
}

func writeMessage(w io.Writer, m *Message, form int) {
	if m.ID != 0 {
		io.WriteString(w, "id: "+strconv.FormatInt(m.ID, 10)+"\n")
	}
	io.WriteString(w, "event: "+m.Type+"\ndata: ")
	w.Write(m.Data[form])
	io.WriteString(w, "\n\n")
}
