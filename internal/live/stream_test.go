package live

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// item is a test event: an id (written as the SSE id when Numbered), and
// two forms of data.
type item struct {
	ID       int64
	Numbered bool
	Hidden   bool
}

func itemHub(t *testing.T, g *Group) *Hub[item] {
	h, err := New(g, Options[item]{Encode: func(e *item) Message {
		m := Message{Type: "item", Data: [][]byte{[]byte("a" + strconv.FormatInt(e.ID, 10)), []byte("b" + strconv.FormatInt(e.ID, 10))}}
		if e.Numbered {
			m.ID = e.ID
		}
		return m
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

func serveItems(h *Hub[item], form int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		after, _ := strconv.ParseInt(r.Header.Get("Last-Event-ID"), 10, 64)
		err := h.Serve(w, r, Stream[item]{
			Form: form, After: after,
			Filter: func(e *item) bool { return !e.Hidden },
			Backlog: func(_ context.Context, after int64, send func(*item)) error {
				for id := after + 1; id <= 3; id++ {
					send(&item{ID: id, Numbered: true, Hidden: id == 2})
				}
				return nil
			},
		})
		if errors.Is(err, ErrTooMany) {
			w.Header().Set("Retry-After", "10")
			http.Error(w, "too many", http.StatusTooManyRequests)
		}
	})
}

// pipeNet is an in-memory network for a synctest bubble: an http.Server
// and a client joined by net.Pipe connections. A goroutine waiting on a
// socket is not "durably blocked", so over a real loopback socket the
// bubble's clock could never move past an open stream; a pipe blocks on
// channels, and its deadlines are the bubble's timers. The server is
// closed at cleanup.
type pipeNet struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	client *http.Client
}

func servePipe(t *testing.T, h http.Handler) *pipeNet {
	n := &pipeNet{conns: make(chan net.Conn), closed: make(chan struct{})}
	tr := &http.Transport{DialContext: n.dial}
	n.client = &http.Client{Transport: tr}
	srv := &http.Server{Handler: h}
	go srv.Serve(n)
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	return n
}

func (n *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-n.conns:
		return c, nil
	case <-n.closed:
		return nil, net.ErrClosed
	}
}

func (n *pipeNet) Close() error { n.once.Do(func() { close(n.closed) }); return nil }

func (n *pipeNet) Addr() net.Addr { return pipeAddr{} }

func (n *pipeNet) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	srv, cli := net.Pipe()
	select {
	case n.conns <- srv:
		return cli, nil
	case <-n.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// open opens a stream and sends its lines (blank lines too).
func (n *pipeNet) open(t *testing.T, ctx context.Context, lastID string) (int, <-chan string) {
	t.Helper()
	res := n.request(t, ctx, lastID)
	lines := make(chan string, 64)
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	return res.StatusCode, lines
}

// request opens a stream and reads nothing of its body.
func (n *pipeNet) request(t *testing.T, ctx context.Context, lastID string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://pipe/", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := n.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func expect(t *testing.T, lines <-chan string, want ...string) {
	t.Helper()
	for _, w := range want {
		select {
		case got := <-lines:
			if got != w {
				t.Fatalf("line %q; want %q", got, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no line; want %q", w)
		}
	}
}

// nothing checks that no line is waiting once every goroutine is blocked.
func nothing(t *testing.T, lines <-chan string, when string) {
	t.Helper()
	synctest.Wait()
	select {
	case l := <-lines:
		t.Fatalf("%s: line %q; want none", when, l)
	default:
	}
}

// A stream opened with Last-Event-ID first gets the backlog after it (in
// its form, through its filter), then live events, skipping those the
// backlog sent already.
func TestServeBacklogThenLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := itemHub(t, nil)
		n := servePipe(t, serveItems(h, 1))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		code, lines := n.open(t, ctx, "1")
		if code != 200 {
			t.Fatalf("status %d", code)
		}
		// Event 2 is hidden by the filter; 3 comes from the backlog. The stream
		// joined the hub before it wrote anything.
		expect(t, lines, "retry: 2000", "", "id: 3", "event: item", "data: b3", "")
		h.Deliver(&item{ID: 3, Numbered: true}) // sent already
		h.Deliver(&item{ID: 4, Numbered: true, Hidden: true})
		h.Deliver(&item{ID: 9}) // no id: never skipped
		h.Deliver(&item{ID: 5, Numbered: true})
		expect(t, lines, "event: item", "data: b9", "", "id: 5", "event: item", "data: b5", "")
	})
}

// An idle stream gets a comment line every heartbeat, and not before, so
// that proxies and the browser keep it open.
func TestIdleStreamHeartbeat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := itemHub(t, nil)
		n := servePipe(t, serveItems(h, 0))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, lines := n.open(t, ctx, "")
		expect(t, lines, "retry: 2000", "")
		for range 2 {
			time.Sleep(heartbeat - time.Millisecond)
			nothing(t, lines, "before the heartbeat")
			time.Sleep(time.Millisecond)
			expect(t, lines, ": ping", "")
		}
	})
}

// A client that stops reading is cut off writeTimeout after the write it
// left waiting, and its stream is released; one that reads is not.
func TestStalledClientIsCutOff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &Group{}
		h := itemHub(t, g)
		n := servePipe(t, serveItems(h, 0))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, lines := n.open(t, ctx, "")
		expect(t, lines, "retry: 2000", "")
		stalled := n.request(t, ctx, "") // its headers and first chunk are read; then nothing
		defer stalled.Body.Close()
		synctest.Wait()
		if got := g.Streams(); got != 2 {
			t.Fatalf("%d streams open; want 2", got)
		}
		h.Deliver(&item{ID: 1})
		expect(t, lines, "event: item", "data: a1", "")
		time.Sleep(writeTimeout - time.Millisecond)
		synctest.Wait()
		if got := g.Streams(); got != 2 {
			t.Fatalf("%d streams open just before the write timeout; want 2", got)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if got := g.Streams(); got != 1 {
			t.Fatalf("%d streams open at the write timeout; want 1 (the stalled one cut off)", got)
		}
		// The reader got its heartbeat meanwhile, and still gets events.
		expect(t, lines, ": ping", "")
		h.Deliver(&item{ID: 2})
		expect(t, lines, "event: item", "data: a2", "")
	})
}

// Past the group's Max, a stream is refused before anything is written;
// once one closes, the next is served.
func TestGroupMaxRefusesStreams(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := &Group{Max: 2}
		a, b := itemHub(t, g), itemHub(t, g)
		na, nb := servePipe(t, serveItems(a, 0)), servePipe(t, serveItems(b, 0))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		first, cancelFirst := context.WithCancel(ctx)
		if code, _ := na.open(t, first, ""); code != 200 {
			t.Fatalf("first stream: %d", code)
		}
		if code, _ := nb.open(t, ctx, ""); code != 200 {
			t.Fatalf("second stream: %d", code)
		}
		if code, lines := na.open(t, ctx, ""); code != http.StatusTooManyRequests {
			t.Fatalf("third stream: %d; want 429", code)
		} else if body := strings.Join(collect(lines), ""); !strings.Contains(body, "too many") {
			t.Fatalf("third stream's body %q", body)
		}
		cancelFirst()
		synctest.Wait() // the server saw the first client go
		if got := g.Streams(); got != 1 {
			t.Fatalf("%d streams open after one closed; want 1", got)
		}
		if code, _ := nb.open(t, ctx, ""); code != 200 {
			t.Fatalf("a stream after one closed: %d", code)
		}
	})
}

func collect(lines <-chan string) []string {
	var out []string
	for l := range lines {
		out = append(out, l)
	}
	return out
}
