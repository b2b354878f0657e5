// Package live sends an app's live events to browsers and API clients as
// Server-Sent Events, on every instance. An app makes one Hub for its event
// type: it names a bus subject, says how an event is written on a stream
// (once per instance, in one or more forms) and which streams it goes to (a
// key: "" for an app-wide stream, or an entity's id, such as a poll's). It
// publishes after each commit with Hub.Publish, and serves a stream with
// Hub.Serve, optionally with a per-stream filter and a backlog that a
// reconnecting client (Last-Event-ID) gets from the database first.
//
// The hub delivers in rounds, spaced to a budget of stream writes a second,
// each stream writing a round in one write; it drops a stream that stops
// reading (the client reconnects and catches up); it numbers what it sends
// on the bus and drops its streams when it finds a message lost, so that
// they catch up too (gap.go); and a Group ends every stream of the process
// at a graceful shutdown.
//
// Use it for a page or API that should change while open (a timeline, a
// poll's results), instead of polling. An event says what changed (roar's
// new roar, or only meet's "the answers changed", after which the page
// fetches what it shows), never a whole page; a stream that must miss
// nothing across a reconnect numbers its events and gives a Backlog.
package live

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/pubsub"
)

// Message is an event as the streams write it, made once per instance and
// shared by every stream.
type Message struct {
	ID   int64    // the SSE id, for Last-Event-ID; 0: none
	Type string   // the SSE event name
	Data [][]byte // the data line in each of the app's forms (Stream.Form); no newline
}

// Bus carries the events between instances: a *pubsub.Bus (tests wrap one).
type Bus interface {
	Publish(subject string, data []byte) error
	Subscribe(subject string, fn func(subject string, data []byte)) (func(), error)
}

// Options say what an app's hub carries.
type Options[E any] struct {
	// Bus carries the events between instances; nil: this instance only.
	Bus Bus
	// Subject is the bus subject of the app's events, e.g. "meet.events".
	Subject string
	// Encode writes an event for the streams, once per instance.
	Encode func(e *E) Message
	// Key names the streams an event goes to: those served with Stream.Key
	// equal to it. nil: "" for every event.
	Key func(e *E) string
	// Beacon is how often a hub that has published tells the bus its last
	// number, so that a lost last message is found too (gap.go); 0: 5 s.
	Beacon time.Duration
	// Heard, when set, is called for every event heard on the bus, from any
	// instance, before it is delivered.
	Heard func(e *E)
	// Noticed, when set, is called for every event heard, as Heard, but
	// without the event: a hub with no Heard, no Key and no stream open
	// here then never decodes the events it hears (a roar's carries its
	// rendered article; decoding it was a twelfth of an instance's CPU
	// under a burst of posts with nobody watching).
	Noticed func()
}

// Hub fans one app's events out to this process's open streams, in rounds.
// Every write to a stream is a system call and a TCP segment, and costs about
// 25 us of one core whatever its size (measured with 10,000 streams on
// loopback, where the kernel also does the receiver's half): one event a
// write saturated the core at 40,000 writes a second, and the delay grew
// without end. So a round carries every event since the last one, each
// stream writes it once, and rounds are spaced so that the writes stay within
// streamWrites a second per core: a few streams get each event at once;
// 10,000 on one core get rounds half a second apart. The writes no longer
// grow with the rate of events, and the delay grows with the audience only as
// far as the budget requires. A stream whose queue is full is dropped (it
// reconnects with Last-Event-ID and catches up), so one slow client never
// holds up the others.
//
// Streams are kept per key, and a key's set is removed with its last stream:
// thousands of entities cost nothing while nobody watches them, and one
// goroutine serves the whole app.
type Hub[E any] struct {
	o     Options[E]
	g     *Group
	unsub func()
	gaps  *gaps // numbers on the bus, to find lost messages (gap.go)

	mu      sync.RWMutex
	clients map[string]map[*client[E]]struct{}
	n       int // streams open
	closed  bool

	pmu     sync.Mutex
	pending map[string][]delivery[E] // events for the next round, by key
	kick    chan struct{}            // a round is due (capacity 1)
	done    chan struct{}            // closed by Shutdown
}

// streamWrites is the budget of stream writes a second per core, about half
// of what a core manages (see Hub).
const streamWrites = 20000

// roundGap is the least time between rounds that reach n streams.
func roundGap(n int) time.Duration {
	return time.Duration(n) * time.Second / time.Duration(streamWrites*runtime.GOMAXPROCS(0))
}

type client[E any] struct {
	ch   chan []delivery[E] // rounds; a round is shared, read-only
	gone chan struct{}      // closed when dropped or the hub shuts down
	once sync.Once
}

// queue is how many rounds a stream may fall behind before it is dropped.
const queue = 64

// delivery is an event with its encodings.
type delivery[E any] struct {
	e *E
	m Message
}

// New makes an app's hub, subscribed to o.Subject on o.Bus, and adds it to
// g (nil: none) so that g.Shutdown ends its streams.
func New[E any](g *Group, o Options[E]) (*Hub[E], error) {
	if b, ok := o.Bus.(*pubsub.Bus); ok && b == nil {
		o.Bus = nil // an app's Deps.Bus left nil: no bus, not a nil one
	}
	h := &Hub[E]{o: o, g: g, clients: map[string]map[*client[E]]struct{}{}, pending: map[string][]delivery[E]{},
		kick: make(chan struct{}, 1), done: make(chan struct{}), gaps: newGaps()}
	if o.Bus != nil {
		unsub, err := o.Bus.Subscribe(o.Subject, func(_ string, data []byte) {
			origin, seq, event, ok := readEnvelope(data)
			if !ok {
				return
			}
			if h.gaps.heard(origin, seq, len(event) == 0) {
				h.resync()
			}
			if len(event) == 0 { // a beacon
				return
			}
			if o.Noticed != nil {
				o.Noticed()
			}
			if o.Heard == nil && o.Key == nil && !h.watched("") {
				return // nobody here needs what it says
			}
			e := new(E)
			if json.Unmarshal(event, e) != nil {
				return
			}
			if o.Heard != nil {
				o.Heard(e)
			}
			h.Deliver(e)
		})
		if err != nil {
			return nil, err
		}
		h.unsub = unsub
	}
	go h.run()
	if o.Bus != nil {
		go h.beacon()
	}
	g.add(h)
	return h, nil
}

// Publish sends e to the streams of every instance, through the bus (without
// one, to this instance's). Call it after the change is committed: a client
// that hears of it can read it.
func (h *Hub[E]) Publish(e *E) error {
	if h.o.Bus == nil {
		if h.o.Noticed != nil {
			h.o.Noticed()
		}
		if h.o.Heard != nil {
			h.o.Heard(e)
		}
		h.Deliver(e)
		return nil
	}
	return h.gaps.publish(func(seq uint64) error {
		event, err := json.Marshal(e)
		if err != nil {
			return err
		}
		return h.o.Bus.Publish(h.o.Subject, appendEnvelope(make([]byte, 0, len(event)+32), h.gaps.origin, seq, event))
	})
}

// Deliver queues e for this instance's next round, if a stream here shows
// its key: an app with thousands of entities encodes only the events that
// someone here watches. (A stream that opens later catches up by itself:
// with Last-Event-ID, or by reading the state it shows once it is open.)
func (h *Hub[E]) Deliver(e *E) {
	key := h.key(e)
	if !h.watched(key) {
		return
	}
	d := delivery[E]{e: e, m: h.o.Encode(e)}
	h.pmu.Lock()
	h.pending[key] = append(h.pending[key], d)
	h.pmu.Unlock()
	select {
	case h.kick <- struct{}{}:
	default: // a round is due already
	}
}

// watched reports whether a stream here shows key.
func (h *Hub[E]) watched(key string) bool {
	h.mu.RLock()
	_, ok := h.clients[key]
	h.mu.RUnlock()
	return ok
}

func (h *Hub[E]) key(e *E) string {
	if h.o.Key == nil {
		return ""
	}
	return h.o.Key(e)
}

func (h *Hub[E]) add(key string) *client[E] {
	c := &client[E]{ch: make(chan []delivery[E], queue), gone: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		c.drop()
		return c
	}
	set := h.clients[key]
	if set == nil {
		set = map[*client[E]]struct{}{}
		h.clients[key] = set
	}
	set[c] = struct{}{}
	h.n++
	return c
}

func (h *Hub[E]) remove(key string, c *client[E]) {
	h.mu.Lock()
	if set := h.clients[key]; set != nil {
		if _, ok := set[c]; ok {
			delete(set, c)
			h.n--
			if len(set) == 0 {
				delete(h.clients, key)
			}
		}
	}
	h.mu.Unlock()
	c.drop()
}

func (c *client[E]) drop() { c.once.Do(func() { close(c.gone) }) }

// run delivers a round when events are pending, at most one per roundGap of
// the streams the round reaches: the first event after a quiet spell goes
// out at once.
func (h *Hub[E]) run() {
	var last time.Time
	for {
		select {
		case <-h.kick:
		case <-h.done:
			return
		}
		if wait := time.Until(last.Add(roundGap(h.reach()))); wait > 0 {
			select {
			case <-time.After(wait):
			case <-h.done:
				return
			}
		}
		h.pmu.Lock()
		round := h.pending
		if len(round) > 0 {
			h.pending = map[string][]delivery[E]{}
		} else {
			round = nil // a kick for events a round already took
		}
		h.pmu.Unlock()
		if round != nil {
			last = time.Now()
			h.deliver(round)
		}
	}
}

// reach is the number of streams the pending events go to.
func (h *Hub[E]) reach() int {
	h.pmu.Lock()
	keys := make([]string, 0, len(h.pending))
	for k := range h.pending {
		keys = append(keys, k)
	}
	h.pmu.Unlock()
	h.mu.RLock()
	defer h.mu.RUnlock()
	n := 0
	for _, k := range keys {
		n += len(h.clients[k])
	}
	return n
}

func (h *Hub[E]) deliver(round map[string][]delivery[E]) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for key, batch := range round {
		for c := range h.clients[key] {
			select {
			case c.ch <- batch:
			default:
				c.drop()
			}
		}
	}
}

// Streams is the number of streams open on this instance.
func (h *Hub[E]) Streams() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.n
}

// Shutdown ends every stream and refuses new ones (a graceful shutdown: the
// HTTP server waits for open responses). The bus is still listened to.
func (h *Hub[E]) Shutdown() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		close(h.done)
	}
	h.closed = true
	for _, set := range h.clients {
		for c := range set {
			c.drop()
		}
	}
}

// Close shuts the hub down and stops listening to the bus.
func (h *Hub[E]) Close() {
	h.mu.Lock()
	unsub := h.unsub
	h.unsub = nil
	h.mu.Unlock()
	if unsub != nil {
		unsub()
	}
	h.Shutdown()
}

// Group is the hubs of one process, so that a graceful shutdown ends every
// live stream, whatever app serves it, and so that together they hold at
// most Max streams. The zero Group is ready; a nil *Group holds nothing.
type Group struct {
	// Max is how many streams the group's hubs may hold open at once (0: no
	// limit); past it a stream is refused with 429 and Retry-After. Every
	// stream holds a connection: without a limit, clients that open streams
	// could take every file descriptor, and pages would no longer be served
	// (see MaxStreams).
	Max int

	open atomic.Int64
	mu   sync.Mutex
	hubs []interface{ Shutdown() }
	down bool
}

// acquire counts a stream in, unless the group holds Max already.
func (g *Group) acquire() bool {
	if g == nil {
		return true
	}
	if n := g.open.Add(1); g.Max > 0 && n > int64(g.Max) {
		g.open.Add(-1)
		return false
	}
	return true
}

func (g *Group) release() {
	if g != nil {
		g.open.Add(-1)
	}
}

// Streams is the number of streams the group's hubs hold open.
func (g *Group) Streams() int {
	if g == nil {
		return 0
	}
	return int(g.open.Load())
}

func (g *Group) add(h interface{ Shutdown() }) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.down {
		h.Shutdown()
		return
	}
	g.hubs = append(g.hubs, h)
}

// Shutdown ends the streams of every hub in g, and of any made later.
func (g *Group) Shutdown() {
	if g == nil {
		return
	}
	g.mu.Lock()
	hubs := g.hubs
	g.down = true
	g.mu.Unlock()
	for _, h := range hubs {
		h.Shutdown()
	}
}

// JSON encodes v for a data line: without HTML escaping (the data is never
// put in a page as HTML; escaping "<" as \u003c only makes the stream
// larger), and without the encoder's newline (a data line must not contain
// one).
func JSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
