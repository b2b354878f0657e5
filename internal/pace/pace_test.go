package pace_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tutti-dev/tutti/internal/pace"
)

var t0 = time.UnixMilli(1_800_000_000_000)

// window feeds c one window of n requests taking d each, from start, and
// returns the level once it is decided.
func window(c *pace.Controller, start time.Time, n int, d time.Duration) (time.Time, float64) {
	for i := range n {
		c.Observe(start.Add(time.Duration(i)*c.Window/time.Duration(n+1)), d)
	}
	next := start.Add(c.Window)
	return next, c.Level(next)
}

// Latency over the target cuts the level, at most by half a window and
// never under the floor; latency back under it lets the level climb back,
// a step a window, never over 1.
func TestLevelFollowsLatency(t *testing.T) {
	c := pace.New()
	now := t0
	if l := c.Level(now); l != 1 {
		t.Fatalf("starts at %v; want 1", l)
	}
	now, l := window(c, now, 100, 100*time.Millisecond)
	if l != 1 {
		t.Fatalf("healthy: %v; want 1", l)
	}
	now, l = window(c, now, 100, 500*time.Millisecond) // p90 twice the target
	if l < 0.49 || l > 0.51 {
		t.Fatalf("p90 at twice the target: %v; want 0.5", l)
	}
	now, l = window(c, now, 100, 300*time.Millisecond) // 1.2 times
	if want := 0.5 * 250 / 300.0; l < want-0.01 || l > want+0.01 {
		t.Fatalf("p90 at 1.2 the target: %v; want %v", l, want)
	}
	for range 10 { // very slow: halved each window, down to the floor
		now, l = window(c, now, 100, 10*time.Second)
		if l < c.Floor {
			t.Fatalf("under the floor: %v", l)
		}
	}
	if l != c.Floor {
		t.Fatalf("after ten slow windows: %v; want the floor %v", l, c.Floor)
	}
	prev := l
	for i := range 30 {
		now, l = window(c, now, 100, 50*time.Millisecond)
		if l > 1 {
			t.Fatalf("over 1: %v", l)
		}
		if want := min(prev+c.Step, 1); l < want-1e-9 || l > want+1e-9 {
			t.Fatalf("healthy window %d: %v; want %v", i, l, want)
		}
		prev = l
	}
	if l != 1 {
		t.Fatalf("recovered to %v; want 1", l)
	}
}

// Only the slow tail counts: a p90 under the target keeps the level even
// if a few requests are very slow.
func TestTailUnderTheTargetKeepsTheLevel(t *testing.T) {
	c := pace.New()
	now := t0
	for i := range 100 {
		d := 20 * time.Millisecond
		if i%20 == 0 {
			d = 5 * time.Second // 5 %
		}
		c.Observe(now.Add(time.Duration(i)*time.Millisecond), d)
	}
	if l := c.Level(now.Add(c.Window)); l != 1 {
		t.Fatalf("level %v; want 1", l)
	}
}

// A window with too few requests to judge holds if one was slow, and
// otherwise climbs; a quiet site (no requests) climbs back to 1; a long
// idle starts over at 1.
func TestQuietWindows(t *testing.T) {
	c := pace.New()
	now, l := window(c, t0, 100, time.Second)
	if l != 0.5 {
		t.Fatalf("slow: %v", l)
	}
	now, l = window(c, now, 3, time.Second)
	if l != 0.5 {
		t.Fatalf("three slow requests: %v; want held at 0.5", l)
	}
	now, l = window(c, now, 3, time.Millisecond)
	if l != 0.5+c.Step {
		t.Fatalf("three fast requests: %v; want %v", l, 0.5+c.Step)
	}
	if l := c.Level(now.Add(3 * c.Window)); l < 0.5+4*c.Step-1e-9 || l > 0.5+4*c.Step+1e-9 {
		t.Fatalf("three quiet windows: %v; want %v", l, 0.5+4*c.Step)
	}
	window(c, now.Add(4*c.Window), 100, time.Second)
	if l := c.Level(now.Add(time.Hour)); l != 1 {
		t.Fatalf("after an idle hour: %v; want 1", l)
	}
}

// The handler counts the time to the first byte: a stream that stays open
// after it is not slow, a page slow to start is; an upload is not counted.
// (synctest: the handlers' ten seconds pass at once.)
func TestHandlerCountsTheFirstByte(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		serve := func(c *pace.Controller, r *http.Request, h http.HandlerFunc) float64 {
			c.Handler(h).ServeHTTP(httptest.NewRecorder(), r)
			return c.Level(time.Now().Add(c.Window))
		}
		get := func() *http.Request { return httptest.NewRequest("GET", "/", nil) }
		c := pace.New()
		c.MinSamples = 1
		stream := func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			if err := http.NewResponseController(w).Flush(); err != nil {
				t.Errorf("flush through the wrapper: %v", err)
			}
			time.Sleep(10 * time.Second) // the stream stays open
		}
		if l := serve(c, get(), stream); l != 1 {
			t.Fatalf("level %v after a 10 s stream; want 1", l)
		}
		slow := func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(10 * time.Second)
			w.Write([]byte("late"))
		}
		if l := serve(c, get(), slow); l != 0.5 {
			t.Fatalf("level %v after a page 10 s late; want 0.5", l)
		}
		c = pace.New()
		c.MinSamples = 1
		big := httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("x", pace.MaxBody+1)))
		if l := serve(c, big, slow); l != 1 {
			t.Fatalf("level %v after a slow upload; want 1 (not observed)", l)
		}
	})
}
