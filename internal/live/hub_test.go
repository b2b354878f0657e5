package live

import (
	"encoding/json"
	"log/slog"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tutti-dev/tutti/internal/pubsub"
)

type event struct {
	Key string
	ID  int64
}

func testHub(t *testing.T) *Hub[event] {
	h, err := New(nil, Options[event]{
		Encode: func(e *event) Message {
			return Message{Type: "e", Data: [][]byte{[]byte(strconv.FormatInt(e.ID, 10))}}
		},
		Key: func(e *event) string { return e.Key },
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestRoundGapGrowsWithTheStreams(t *testing.T) {
	cores := time.Duration(runtime.GOMAXPROCS(0))
	if g := roundGap(10); g > time.Millisecond {
		t.Errorf("10 streams: gap %v, want at once", g)
	}
	if g, want := roundGap(10000), 500*time.Millisecond/cores; g != want {
		t.Errorf("10,000 streams: gap %v, want %v", g, want)
	}
}

// Events go out in rounds: a quiet hub sends the first at once; what comes
// while a round is due rides along with the next, in order, once the gap for
// the streams it reaches has passed; every client gets the same round; a
// client that stops reading is dropped, not waited for.
func TestHubDeliversInRounds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := testHub(t)
		defer h.Close()
		a, b := h.add(""), h.add("")
		start := time.Now()
		h.Deliver(&event{ID: 1})
		r := <-a.ch
		if len(r) != 1 || r[0].e.ID != 1 || time.Since(start) != 0 {
			t.Fatalf("first round %v after %v, want at once", r, time.Since(start))
		}
		if r := <-b.ch; len(r) != 1 || r[0].e.ID != 1 {
			t.Fatalf("b's first round %v", r)
		}
		// With enough streams for rounds one second apart, three events
		// posted meanwhile make one round, in order, a second after the first.
		var idle []*client[event]
		for range streamWrites * runtime.GOMAXPROCS(0) {
			idle = append(idle, h.add(""))
		}
		for id := int64(2); id <= 4; id++ {
			h.Deliver(&event{ID: id})
		}
		r = <-a.ch
		if len(r) != 3 || r[0].e.ID != 2 || r[1].e.ID != 3 || r[2].e.ID != 4 {
			t.Errorf("round of %d events, want 2 3 4 in one", len(r))
		}
		if got, want := time.Since(start), roundGap(2+len(idle)); got != want {
			t.Errorf("second round after %v, want %v", got, want)
		}
		<-b.ch
		for _, c := range idle {
			h.remove("", c)
		}
		// b stops reading: once its queue is full, the next round drops it.
		for id := int64(5); id < 5+int64(cap(b.ch))+1; id++ {
			h.Deliver(&event{ID: id})
			<-a.ch // the round went to b as well
		}
		synctest.Wait()
		select {
		case <-b.gone:
		default:
			t.Error("a client that never reads was not dropped")
		}
	})
}

// An event goes only to the streams of its key; the rounds are spaced by the
// streams they reach, not by every stream open; a key's set goes with its
// last stream.
func TestHubKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := testHub(t)
		defer h.Close()
		p, q := h.add("p"), h.add("q")
		// Many watch "busy": rounds for "p" are not held back by them.
		var busy []*client[event]
		for range 2 * streamWrites * runtime.GOMAXPROCS(0) {
			busy = append(busy, h.add("busy"))
		}
		start := time.Now()
		for id := int64(1); id <= 3; id++ {
			h.Deliver(&event{Key: "p", ID: id})
			r := <-p.ch
			if len(r) != 1 || r[0].e.ID != id {
				t.Fatalf("p got %v, want event %d alone", r, id)
			}
		}
		if d := time.Since(start); d > time.Millisecond {
			t.Errorf("three rounds for one stream took %v", d)
		}
		synctest.Wait()
		select {
		case r := <-q.ch:
			t.Errorf("q got %v, meant for p", r)
		default:
		}
		for _, c := range busy {
			h.remove("busy", c)
		}
		h.remove("p", p)
		h.mu.RLock()
		_, pset := h.clients["p"]
		_, bset := h.clients["busy"]
		h.mu.RUnlock()
		if pset || bset {
			t.Error("a key without streams is still kept")
		}
		if n := h.Streams(); n != 1 {
			t.Errorf("%d streams, want 1", n)
		}
	})
}

// A Group's Shutdown ends the streams of its hubs, and refuses new ones.
func TestGroupShutdownEndsStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g Group
		h, err := New(&g, Options[event]{Encode: func(*event) Message { return Message{} }})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		c := h.add("")
		g.Shutdown()
		select {
		case <-c.gone:
		default:
			t.Fatal("an open stream was not ended")
		}
		select {
		case <-h.add("").gone:
		default:
			t.Fatal("a stream opened after the shutdown was not ended")
		}
	})
}

// An event whose key no stream here shows is not encoded or queued.
func TestHubSkipsUnwatchedKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		encoded := 0
		h, err := New(nil, Options[event]{
			Encode: func(*event) Message { encoded++; return Message{} },
			Key:    func(e *event) string { return e.Key },
		})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		c := h.add("watched")
		h.Deliver(&event{Key: "nobody"})
		h.Deliver(&event{Key: "watched", ID: 1})
		if r := <-c.ch; len(r) != 1 || r[0].e.ID != 1 {
			t.Fatalf("round %v; want the watched event alone", r)
		}
		if encoded != 1 {
			t.Errorf("%d events encoded; want 1", encoded)
		}
	})
}

// An app's Deps.Bus left nil reaches Options.Bus as a nil *pubsub.Bus in
// the interface: the hub has no bus, and Publish delivers here.
func TestHubWithNilBusDeliversHere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var none *pubsub.Bus
		h, err := New(nil, Options[event]{Bus: none, Encode: func(*event) Message { return Message{} }})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		c := h.add("")
		if err := h.Publish(&event{ID: 7}); err != nil {
			t.Fatalf("Publish: %v; want nil", err)
		}
		if r := <-c.ch; len(r) != 1 || r[0].e.ID != 7 {
			t.Fatalf("round %v; want event 7", r)
		}
	})
}

// decodes counts the decodings of countedEvent.
var decodes atomic.Int64

type countedEvent struct{ N int }

func (c *countedEvent) UnmarshalJSON(b []byte) error {
	decodes.Add(1)
	type plain countedEvent
	return json.Unmarshal(b, (*plain)(c))
}

// A hub with Noticed and nobody watching hears every event without
// decoding it; once a stream is open here, the events are decoded for it.
func TestHubDecodesOnlyForWatchers(t *testing.T) {
	bus, err := pubsub.Open("", t.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Close() })
	enc := func(e *countedEvent) Message { return Message{Type: "n", Data: [][]byte{[]byte("{}")}} }
	a, err := New(nil, Options[countedEvent]{Bus: bus, Subject: "test.counted", Encode: enc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	var noticed atomic.Int64
	b, err := New(nil, Options[countedEvent]{Bus: bus, Subject: "test.counted", Encode: enc, Noticed: func() { noticed.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	wait := func(want int64) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); noticed.Load() < want && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond)
		}
		if got := noticed.Load(); got != want {
			t.Fatalf("noticed %d events; want %d", got, want)
		}
	}
	before := decodes.Load()
	for i := range 5 {
		if err := a.Publish(&countedEvent{N: i}); err != nil {
			t.Fatal(err)
		}
	}
	wait(5)
	if d := decodes.Load() - before; d != 0 {
		t.Errorf("%d events decoded with no stream open; want 0", d)
	}
	c := b.add("")
	defer b.remove("", c)
	if err := a.Publish(&countedEvent{N: 9}); err != nil {
		t.Fatal(err)
	}
	wait(6)
	if d := decodes.Load() - before; d != 1 {
		t.Errorf("%d events decoded with a stream open on b; want 1", d)
	}
}
