package live

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/pubsub"
)

// table stands for the database: the items committed, which a stream's
// Backlog reads.
type table struct {
	mu    sync.Mutex
	items []item
}

func (tb *table) add(e item) {
	tb.mu.Lock()
	tb.items = append(tb.items, e)
	tb.mu.Unlock()
}

func (tb *table) after(id int64) []item {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	var out []item
	for _, e := range tb.items {
		if e.ID > id {
			out = append(out, e)
		}
	}
	return out
}

// twoInstances is two hubs on one bus (the embedded NATS), as two
// instances would be; b's streams are served over HTTP with a Backlog
// from tb.
func twoInstances(t *testing.T, beacon time.Duration) (a, b *Hub[item], lose *atomic.Int64, tb *table, url string) {
	t.Helper()
	bus, err := pubsub.Open("", t.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bus.Close() })
	o := Options[item]{Bus: bus, Subject: "test.items", Beacon: beacon, Encode: func(e *item) Message {
		return Message{ID: e.ID, Type: "item", Data: [][]byte{[]byte(strconv.FormatInt(e.ID, 10))}}
	}}
	if a, err = New(nil, o); err != nil {
		t.Fatal(err)
	}
	lossy := &lossyBus{Bus: bus}
	ob := o
	ob.Bus = lossy
	if b, err = New(nil, ob); err != nil {
		t.Fatal(err)
	}
	lose = &lossy.lose
	t.Cleanup(a.Close)
	t.Cleanup(b.Close)
	tb = &table{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after, _ := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64)
		b.Serve(w, r, Stream[item]{After: after, Backlog: func(_ context.Context, after int64, send func(*item)) error {
			for _, e := range tb.after(after) {
				send(&e)
			}
			return nil
		}})
	}))
	t.Cleanup(srv.Close)
	return a, b, lose, tb, srv.URL
}

// reader is an SSE client that reconnects with Last-Event-ID, as a
// browser does; it reports the ids it gets and each reconnect (-1).
func reader(t *testing.T, ctx context.Context, url string) <-chan int64 {
	out := make(chan int64, 64)
	go func() {
		last := ""
		for ctx.Err() == nil {
			req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
			if last != "" {
				req.Header.Set("Last-Event-ID", last)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return
			}
			sc := bufio.NewScanner(res.Body)
			for sc.Scan() {
				if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
					last = id
					n, _ := strconv.ParseInt(id, 10, 64)
					out <- n
				}
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if ctx.Err() == nil {
				out <- -1
			}
		}
	}()
	return out
}

func want(t *testing.T, got <-chan int64, ids ...int64) {
	t.Helper()
	for _, w := range ids {
		select {
		case g := <-got:
			if g != w {
				t.Fatalf("got %d; want %d (-1: a reconnect)", g, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("nothing within 5 s; want %d (-1: a reconnect)", w)
		}
	}
}

// waitStreams waits until h serves n streams.
func waitStreams[E any](t *testing.T, h *Hub[E], n int) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); h.Streams() != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("%d streams; want %d", h.Streams(), n)
		}
	}
}

// A message lost between instances: the next one shows the gap, b ends
// its streams, and the reader reconnects and gets the lost event from the
// database, then goes on live.
func TestLostBusMessageIsCaughtUp(t *testing.T) {
	a, b, lose, tb, url := twoInstances(t, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := reader(t, ctx, url)
	waitStreams(t, b, 1)
	post := func(id int64) {
		tb.add(item{ID: id})
		if err := a.Publish(&item{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	post(1)
	want(t, got, 1)
	lose.Store(1)
	post(2) // lost on its way to b
	post(3)
	want(t, got, -1, 2, 3) // reconnected, and caught up from the table
	if n := b.Lost(); n != 1 {
		t.Errorf("b found %d lost messages; want 1", n)
	}
	waitStreams(t, b, 1)
	post(4)
	want(t, got, 4)
}

// The last message lost, with nothing after it: the publisher's beacon
// shows the gap.
func TestLostLastMessageIsFoundByBeacon(t *testing.T) {
	a, b, lose, tb, url := twoInstances(t, 200*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := reader(t, ctx, url)
	waitStreams(t, b, 1)
	for id := int64(1); id <= 2; id++ {
		tb.add(item{ID: id})
		if id == 2 {
			lose.Store(1)
		}
		if err := a.Publish(&item{ID: id}); err != nil {
			t.Fatal(err)
		}
		if id == 1 {
			want(t, got, 1)
		}
	}
	want(t, got, -1, 2)
}

// Publishers racing on one hub are not losses: numbers leave in the order
// they are given, so no hub ends its streams for nothing (it did, about
// once per hundred concurrent posts, before numbering and sending were one
// step).
func TestConcurrentPublishersAreNoGap(t *testing.T) {
	a, b, _, _, _ := twoInstances(t, time.Hour)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				if err := a.Publish(&item{ID: int64(g*1000 + i)}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	a.gaps.beacon(func(s uint64) {
		if s != 8*300 {
			t.Errorf("last number %d, want %d", s, 8*300)
		}
	})
	// Every message has reached b once a beacon sent after them has.
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.gaps.mu.Lock()
		last := b.gaps.last[a.gaps.origin]
		b.gaps.mu.Unlock()
		if last == 8*300 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if a.Lost() != 0 || b.Lost() != 0 {
		t.Errorf("gaps found: a %d, b %d; want none", a.Lost(), b.Lost())
	}
}

// lossyBus is a bus whose subscriptions drop the next lose messages heard.
type lossyBus struct {
	*pubsub.Bus
	lose atomic.Int64
}

func (l *lossyBus) Subscribe(subject string, fn func(string, []byte)) (func(), error) {
	return l.Bus.Subscribe(subject, func(s string, data []byte) {
		if l.lose.Load() > 0 && l.lose.Add(-1) >= 0 {
			return
		}
		fn(s, data)
	})
}

// The bus envelope round-trips, a beacon has no event, and what is not an
// envelope (junk, a cut header, an origin past its bound, a JSON envelope
// of an older tutti) is refused, not read past its end.
func TestEnvelope(t *testing.T) {
	b := appendEnvelope(nil, "inst-1", 300, []byte(`{"id":7}`))
	o, s, e, ok := readEnvelope(b)
	if !ok || o != "inst-1" || s != 300 || string(e) != `{"id":7}` {
		t.Errorf("round trip: %q %d %q %v", o, s, e, ok)
	}
	if o, s, e, ok := readEnvelope(appendEnvelope(nil, "inst-1", 5, nil)); !ok || o != "inst-1" || s != 5 || len(e) != 0 {
		t.Errorf("beacon: %q %d %q %v", o, s, e, ok)
	}
	long := appendEnvelope(nil, strings.Repeat("o", maxOrigin+1), 1, nil)
	for name, bad := range map[string][]byte{
		"empty":        nil,
		"json":         []byte(`{"o":"inst-1","s":3,"e":{"id":7}}`),
		"cut origin":   b[:4],
		"no seq":       b[:1+1+len("inst-1")],
		"empty origin": {envelopeTag, 0, 1},
		"long origin":  long,
	} {
		if _, _, _, ok := readEnvelope(bad); ok {
			t.Errorf("%s: %x read as an envelope", name, bad)
		}
	}
}

func FuzzEnvelope(f *testing.F) {
	f.Add(appendEnvelope(nil, "a", 1, []byte("{}")))
	f.Fuzz(func(t *testing.T, b []byte) {
		o, s, e, ok := readEnvelope(b)
		if !ok {
			return
		}
		if again := appendEnvelope(nil, o, s, e); string(again) != string(b) && len(again) > len(b) {
			t.Fatalf("%x read as %q %d %q, which writes %x", b, o, s, e, again)
		}
	})
}
