package load

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestReadEvents(t *testing.T) {
	long := strings.Repeat("x", 5000) // longer than the reader's buffer
	in := ": comment\nretry: 2000\n\nid: 7\nevent: roar\ndata: {\"a\":1}\ndata: second\r\n\n" +
		"data: " + long + "\n\nevent: empty\n\n"
	var got []string
	err := readEvents(strings.NewReader(in), func(e *Event) error {
		got = append(got, e.ID+"|"+e.Type+"|"+string(e.Data))
		return nil
	})
	if err == nil {
		t.Fatal("no EOF at the end")
	}
	want := []string{"7|roar|{\"a\":1}\nsecond", "7|message|" + long}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events %q; want %q", got, want)
	}
}

// TestStreamAndRecord runs a scenario whose session reads an event stream
// until the run ends and records a sample per event.
func TestStreamAndRecord(t *testing.T) {
	var cookie string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			http.SetCookie(w, &http.Cookie{Name: "s", Value: "abc"})
			return
		}
		cookie = r.Header.Get("Cookie")
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 1; ; i++ {
			fmt.Fprintf(w, "id: %d\nevent: tick\ndata: {\"at\":%d}\n\n", i, time.Now().UnixMilli())
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	events := 0
	sc := &Scenario{Name: "sse", Sessions: []Session{{Name: "listen", Weight: 1, Run: func(ctx context.Context, c *Client) error {
		if _, err := c.Get(ctx, "login", "/login"); err != nil {
			return err
		}
		return c.Stream(ctx, "stream", "/stream", nil, func(e *Event) error {
			if e.Type != "tick" || !strings.HasPrefix(string(e.Data), `{"at":`) {
				return fmt.Errorf("event %+v", e)
			}
			events++
			c.Record("delivery", 3*time.Millisecond)
			return nil
		})
	}}}}
	start := time.Now()
	// A grace of a minute: a stream kept past the run's end would hold it
	// for the whole grace, far from the half second it lasts, whatever the
	// machine's load.
	res, err := Run(context.Background(), sc, Config{Target: u, Closed: 1, Duration: 500 * time.Millisecond, Grace: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the stream outlived the run: %v; want it ended with the run, not the grace", took)
	}
	if cookie != "s=abc" {
		t.Errorf("stream sent cookie %q; want s=abc", cookie)
	}
	if res.Totals.Errors != 0 || res.Totals.SessionsFailed != 0 {
		t.Errorf("errors %d, failed sessions %d; want none (%v)", res.Totals.Errors, res.Totals.SessionsFailed, res.Errors)
	}
	if events < 5 {
		t.Errorf("%d events in 0.5 s; want about 25", events)
	}
	if len(res.Samples) != 1 || res.Samples[0].Name != "delivery" || res.Samples[0].Count != int64(events) {
		t.Fatalf("samples %+v; want one 'delivery' with %d", res.Samples, events)
	}
	if p := res.Samples[0].P50; p < 2.9 || p > 3.1 {
		t.Errorf("delivery p50 %v ms; want 3", p)
	}
	var stream *Stat
	for i := range res.Requests {
		if res.Requests[i].Name == "stream" {
			stream = &res.Requests[i]
		}
	}
	if stream == nil || stream.Count != 1 {
		t.Errorf("stream requests %+v; want one", stream)
	}
}

// TestStreamEndedByServer: a stream the server closes is an error.
func TestStreamEndedByServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: one\n\n")
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	var got error
	sc := &Scenario{Name: "sse", Sessions: []Session{{Name: "listen", Weight: 1, Run: func(ctx context.Context, c *Client) error {
		if got == nil {
			got = c.Stream(ctx, "stream", "/", nil, func(*Event) error { return nil })
		}
		return c.Think(ctx, time.Second, time.Second)
	}}}}
	res, err := Run(context.Background(), sc, Config{Target: u, Closed: 1, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got != ErrStreamEnded {
		t.Errorf("got %v; want ErrStreamEnded", got)
	}
	if res.Errors[KindOther] != 1 {
		t.Errorf("errors %v; want other=1", res.Errors)
	}
}

// TestWarmup: what completes during the warm-up is not measured.
func TestWarmup(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	var n int
	sc := &Scenario{Name: "w", Sessions: []Session{{Name: "s", Weight: 1, Run: func(ctx context.Context, c *Client) error {
		n++
		_, err := c.Get(ctx, "get", "/")
		if err == nil {
			err = c.Think(ctx, 50*time.Millisecond, 50*time.Millisecond)
		}
		return err
	}}}}
	res, err := Run(context.Background(), sc, Config{Target: u, Closed: 1, Warmup: 300 * time.Millisecond, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.Requests == 0 || res.Totals.Requests > int64(n)*2/3 {
		t.Errorf("%d requests measured of %d made; want about half", res.Totals.Requests, n)
	}
	if res.Settings.Warmup != 0.3 || res.Seconds > 0.5 {
		t.Errorf("warm-up %v s, measured %v s; want 0.3 and about 0.3", res.Settings.Warmup, res.Seconds)
	}
}
