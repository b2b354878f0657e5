package roar

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
	"time"
)

// subject is the bus subject of roar's live events; every instance
// subscribes, so a roar posted on one reaches the streams of all.
const subject = "roar.events"

// Event is a live change, as sent on the bus and to the streams.
type Event struct {
	Type    string   `json:"type"` // roar, like, counts, delete, notify
	ID      int64    `json:"id"`   // the roar; notify: the user notified
	Author  int64    `json:"author,omitempty"`
	Origin  int64    `json:"origin,omitempty"` // for a repost: the original's author
	ReplyTo int64    `json:"reply_to,omitempty"`
	Likes   int64    `json:"likes"`
	Gone    []int64  `json:"gone,omitempty"`   // delete: every roar removed
	HTML    string   `json:"html,omitempty"`   // roar: the rendered article, the same for every viewer
	Roar    *APIRoar `json:"roar,omitempty"`   // roar: the API's representation
	At      int64    `json:"at,omitempty"`     // roar: created, unix ms (for delivery delay)
	Unread  *int64   `json:"unread,omitempty"` // notify: the user's unread notifications
}

// hub fans events out to this process's open streams, in rounds. Every
// write to a stream is a system call and a TCP segment, and costs about
// 25 us of one core here whatever its size (measured with 10,000 streams on
// loopback, where the kernel also does the receiver's half): one event a
// write saturated the core at 40,000 writes a second, and the delay grew
// without end. So a round carries every event since the last one, each
// stream writes it once, and rounds are spaced so that the writes stay
// within streamWrites a second per core: a few streams get each event at
// once; 10,000 on one core get rounds half a second apart. The writes no
// longer grow with the rate of events, and the delay grows with the
// audience only as far as the budget requires. A stream whose queue is full is dropped (it
// reconnects with Last-Event-ID and catches up from the database), so one
// slow client never holds up the others.
type hub struct {
	mu      sync.RWMutex
	clients map[*client]struct{}
	closed  bool

	pmu     sync.Mutex
	pending []delivery    // events for the next round
	kick    chan struct{} // a round is due (capacity 1)
	done    chan struct{} // closed by close
}

// streamWrites is the budget of stream writes a second per core, about half
// of what a core manages (see hub).
const streamWrites = 20000

// roundGap is the least time between rounds for n streams.
func roundGap(n int) time.Duration {
	return time.Duration(n) * time.Second / time.Duration(streamWrites*runtime.GOMAXPROCS(0))
}

type client struct {
	ch   chan []delivery // rounds; a round is shared, read-only
	gone chan struct{}   // closed when dropped or the hub closes
	once sync.Once
}

// delivery is an event with its two encodings, made once per instance and
// shared by every stream: for pages (a new roar as its rendered article) and
// for API clients (?format=json: a new roar as the API's Roar).
type delivery struct {
	e         *Event
	page, api []byte
}

func newDelivery(e *Event) delivery {
	page, api := *e, *e
	if page.HTML != "" {
		page.Roar = nil
	}
	api.HTML = ""
	return delivery{e: e, page: encode(&page), api: encode(&api)}
}

// encode is JSON without HTML escaping (the data is never put in a page as
// HTML; escaping "<" as \u003c only makes the stream larger), and without
// the encoder's newline (an SSE data line must not contain one).
func encode(e *Event) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(e)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func newHub() *hub {
	h := &hub{clients: map[*client]struct{}{}, kick: make(chan struct{}, 1), done: make(chan struct{})}
	go h.run()
	return h
}

func (h *hub) add() *client {
	c := &client{ch: make(chan []delivery, 64), gone: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		c.drop()
		return c
	}
	h.clients[c] = struct{}{}
	return c
}

func (h *hub) remove(c *client) {
	h.mu.Lock()
	delete(h.clients, c)
	h.mu.Unlock()
	c.drop()
}

func (c *client) drop() { c.once.Do(func() { close(c.gone) }) }

// broadcast queues e for the next round.
func (h *hub) broadcast(e *Event) {
	d := newDelivery(e)
	h.pmu.Lock()
	h.pending = append(h.pending, d)
	h.pmu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default: // a round is due already
	}
}

// run delivers a round when events are pending, at most one per roundGap:
// the first event after a quiet spell goes out at once.
func (h *hub) run() {
	var last time.Time
	for {
		select {
		case <-h.kick:
		case <-h.done:
			return
		}
		if wait := time.Until(last.Add(roundGap(h.count()))); wait > 0 {
			select {
			case <-time.After(wait):
			case <-h.done:
				return
			}
		}
		h.pmu.Lock()
		round := h.pending
		h.pending = nil
		h.pmu.Unlock()
		if len(round) > 0 { // a kick for events a round already took
			last = time.Now()
			h.deliver(round)
		}
	}
}

func (h *hub) deliver(round []delivery) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for c := range h.clients {
		select {
		case c.ch <- round:
		default:
			c.drop()
		}
	}
}

// count is the number of open streams.
func (h *hub) count() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.clients)
}

// close ends every stream (graceful shutdown).
func (h *hub) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		close(h.done)
	}
	h.closed = true
	for c := range h.clients {
		c.drop()
	}
}
