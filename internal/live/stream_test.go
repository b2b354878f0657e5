package live

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
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

// open opens a stream and sends its lines (blank lines too).
func open(t *testing.T, ctx context.Context, url, lastID string) (int, <-chan string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
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

// A stream opened with Last-Event-ID first gets the backlog after it (in
// its form, through its filter), then live events, skipping those the
// backlog sent already.
func TestServeBacklogThenLive(t *testing.T) {
	h := itemHub(t, nil)
	srv := httptest.NewServer(serveItems(h, 1))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code, lines := open(t, ctx, srv.URL, "1")
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
}

// Past the group's Max, a stream is refused before anything is written;
// once one closes, the next is served.
func TestGroupMaxRefusesStreams(t *testing.T) {
	g := &Group{Max: 2}
	a, b := itemHub(t, g), itemHub(t, g)
	sa, sb := httptest.NewServer(serveItems(a, 0)), httptest.NewServer(serveItems(b, 0))
	defer sa.Close()
	defer sb.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first, cancelFirst := context.WithCancel(ctx)
	if code, _ := open(t, first, sa.URL, ""); code != 200 {
		t.Fatalf("first stream: %d", code)
	}
	if code, _ := open(t, ctx, sb.URL, ""); code != 200 {
		t.Fatalf("second stream: %d", code)
	}
	if code, lines := open(t, ctx, sa.URL, ""); code != http.StatusTooManyRequests {
		t.Fatalf("third stream: %d; want 429", code)
	} else if body := strings.Join(collect(lines), ""); !strings.Contains(body, "too many") {
		t.Fatalf("third stream's body %q", body)
	}
	cancelFirst()
	for g.Streams() != 1 {
		time.Sleep(time.Millisecond)
	}
	if code, _ := open(t, ctx, sb.URL, ""); code != 200 {
		t.Fatalf("a stream after one closed: %d", code)
	}
}

func collect(lines <-chan string) []string {
	var out []string
	for l := range lines {
		out = append(out, l)
	}
	return out
}
