package live

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// A lost bus message must not leave a reader silently behind. Core NATS
// delivers at most once: a message lost between instances (a slow
// consumer, a reconnect, a node restarting) would leave every stream of
// the receiving instance without that event, with nothing to tell it.
// So each hub numbers what it publishes (its origin, a random id per
// process, and a sequence), and tells the bus its last number every
// beaconEvery even when quiet. A hub that sees a number jump, or a beacon
// ahead of what it heard, knows it lost something from that origin and
// ends every stream it serves: their clients reconnect (retry: 2000) with
// Last-Event-ID and get what they missed from the database (the Backlog;
// meet's pages refetch the poll), as after any drop. Losses are rare, and
// a reconnect costs a request each; a stream never silently misses one.

// beaconEvery is how often a hub that has published tells its last number
// (Options.Beacon).
const beaconEvery = 5 * time.Second

// An event on the bus is an envelope: a header with its origin and number,
// then the event's JSON (none: a beacon). The header is read without
// touching the event, which a hub decodes only if someone here needs it
// (Options.Noticed); a JSON envelope had to be scanned whole to be read.
//
//	envelopeTag uvarint(len(origin)) origin uvarint(seq) [event JSON]
const envelopeTag = 0x01

// maxOrigin bounds the origin a header may claim.
const maxOrigin = 64

func appendEnvelope(b []byte, origin string, seq uint64, event []byte) []byte {
	b = append(b, envelopeTag)
	b = binary.AppendUvarint(b, uint64(len(origin)))
	b = append(b, origin...)
	b = binary.AppendUvarint(b, seq)
	return append(b, event...)
}

// readEnvelope splits a bus message; ok false: not an envelope.
func readEnvelope(b []byte) (origin string, seq uint64, event []byte, ok bool) {
	if len(b) == 0 || b[0] != envelopeTag {
		return "", 0, nil, false
	}
	b = b[1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || n == 0 || n > maxOrigin || n > uint64(len(b)-k) {
		return "", 0, nil, false
	}
	origin, b = string(b[k:k+int(n)]), b[k+int(n):]
	seq, k = binary.Uvarint(b)
	if k <= 0 {
		return "", 0, nil, false
	}
	return origin, seq, b[k:], true
}

// gaps is a hub's record of the last number heard from each origin.
type gaps struct {
	origin string

	pub sync.Mutex // orders numbering and sending (publish, beacon)
	seq uint64     // the last number this hub published (under pub)

	mu   sync.Mutex
	last map[string]uint64 // origin -> the last number heard from it
	lost int64             // gaps found (Lost)
}

func newGaps() *gaps {
	b := make([]byte, 8)
	rand.Read(b)
	return &gaps{origin: hex.EncodeToString(b), last: map[string]uint64{}}
}

// publish numbers a message and sends it with send, under one lock: the
// bus keeps one connection's messages in order, so numbers reach every hub
// in order, and a jump means a loss, never two publishers overtaking each
// other. A failed send takes its number back.
func (g *gaps) publish(send func(seq uint64) error) error {
	g.pub.Lock()
	defer g.pub.Unlock()
	if err := send(g.seq + 1); err != nil {
		return err
	}
	g.seq++
	return nil
}

// beacon sends the last number published, if any, under the same lock (a
// beacon must not pass the event it counts).
func (g *gaps) beacon(send func(seq uint64)) {
	g.pub.Lock()
	defer g.pub.Unlock()
	if g.seq > 0 {
		send(g.seq)
	}
}

// heard records number seq from origin (beacon: it numbers no new event)
// and reports whether something from origin was lost before it. The first
// message heard from an origin starts its count: a stream opened since
// reads the state it shows by itself.
func (g *gaps) heard(origin string, seq uint64, beacon bool) (lost bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	last, known := g.last[origin]
	if beacon {
		lost = known && seq > last
	} else {
		lost = known && seq > last+1
	}
	if !known || seq > last {
		g.last[origin] = seq
	}
	if lost {
		g.lost++
	}
	return lost
}

// Lost is how many lost bus messages this hub found (each ended its streams).
func (h *Hub[E]) Lost() int64 {
	h.gaps.mu.Lock()
	defer h.gaps.mu.Unlock()
	return h.gaps.lost
}

// resync ends every stream of this hub here: each client reconnects and
// catches up from the database. The streams leave the hub at once, so that
// the event that showed the gap is not written to them: a client given it
// would reconnect with its id, past the lost one.
func (h *Hub[E]) resync() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for key, set := range h.clients {
		for c := range set {
			c.drop()
			h.n--
		}
		delete(h.clients, key)
	}
}

// beacon publishes the last number every beaconEvery, once the hub has
// published, until it shuts down.
func (h *Hub[E]) beacon() {
	every := h.o.Beacon
	if every <= 0 {
		every = beaconEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
		}
		h.gaps.beacon(func(s uint64) {
			h.o.Bus.Publish(h.o.Subject, appendEnvelope(nil, h.gaps.origin, s, nil))
		})
	}
}
