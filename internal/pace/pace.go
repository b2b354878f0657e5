// Package pace measures how well the site serves the people it has let in
// (the latency of the requests it answers) and turns it into a level: the
// share of a waiting room's ceiling rate to admit now, between a floor and
// 1. It is the adaptive part of internal/room.
//
// The controller is AIMD against a target latency, as adaptive concurrency
// limiters do (Netflix's concurrency-limits AIMD and Gradient2, Envoy's
// adaptive concurrency filter): every Window it takes the p90 of the
// latencies observed in it; above the Target the level is cut in
// proportion (level * Target/p90, at most halved per window: the
// gradient), at or under it the level climbs back by Step (additive). A
// window with too few requests to judge climbs back unless one of them
// was slow: a quiet site is a healthy one.
//
// Why not a library: the Go ports (platinummonkey/go-concurrency-limits,
// aasyanov/urx adaptx) limit requests in flight and gate each call,
// reading the wall clock inside; a waiting room needs a rate to hand out
// admission times with, driven by explicit times so that it is tested
// without sleeping, and shared across instances (internal/room publishes
// each instance's level in Redis). The control law itself is ten lines.
package pace

import (
	"net/http"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Defaults of a Controller.
const (
	Target     = 250 * time.Millisecond
	Window     = time.Second
	Floor      = 0.1  // a tenth of the ceiling
	Step       = 0.05 // back to full from the floor in 18 windows
	MinSamples = 20
)

// Controller is a site's admission level. Its fields are set before use.
type Controller struct {
	// Target is the p90 latency the site should keep.
	Target time.Duration
	// Window is how often the level is decided.
	Window time.Duration
	// Floor is the lowest level (0 < Floor <= 1): the room never stops.
	Floor float64
	// Step is the additive increase per healthy window.
	Step float64
	// MinSamples is the requests a window needs for its p90 to count.
	MinSamples int64

	mu    sync.Mutex
	level float64
	end   time.Time // of the current window
	h     *hdrhistogram.Histogram
}

// New is a Controller with the defaults, at level 1.
func New() *Controller {
	return &Controller{Target: Target, Window: Window, Floor: Floor, Step: Step, MinSamples: MinSamples}
}

func (c *Controller) init(now time.Time) {
	if c.h == nil {
		// microseconds, from 1 µs to 10 minutes, 2 significant digits
		c.h = hdrhistogram.New(1, int64(10*time.Minute/time.Microsecond), 2)
		c.level = 1
		c.end = now.Add(c.Window)
	}
}

// Observe records a request answered at now that took d.
func (c *Controller) Observe(now time.Time, d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init(now)
	c.roll(now)
	c.h.RecordValue(max(d.Microseconds(), 1)) // a value past the top is dropped: 10 minutes is slow
}

// Level is the share of the ceiling to admit at now, in [Floor, 1].
func (c *Controller) Level(now time.Time) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.init(now)
	c.roll(now)
	return c.level
}

// Min is the lowest Level can be.
func (c *Controller) Min() float64 { return c.Floor }

// roll closes the windows that ended by now; windows after the first that
// ended are empty (nothing was observed in them) and count as quiet.
func (c *Controller) roll(now time.Time) {
	for !now.Before(c.end) {
		c.decide()
		c.h.Reset()
		c.end = c.end.Add(c.Window)
		if gap := now.Sub(c.end); gap > 100*c.Window { // long idle: skip ahead
			c.level = 1
			c.end = c.end.Add(gap / c.Window * c.Window)
		}
	}
}

// decide sets the level from the window just closed.
func (c *Controller) decide() {
	n := c.h.TotalCount()
	target := c.Target.Microseconds()
	switch p90 := c.h.ValueAtQuantile(90); {
	case n >= c.MinSamples && p90 > target:
		c.level *= max(0.5, float64(target)/float64(p90))
	case n < c.MinSamples && c.h.Max() > target:
		// too few to judge, one of them slow: hold
	default:
		c.level += c.Step
	}
	c.level = min(max(c.level, c.Floor), 1)
}

// MaxBody is the largest request body whose request is observed: an
// upload's time is its sender's network, not the site's health.
const MaxBody = 64 << 10

// Handler observes the requests next answers: the time to their first
// byte (the response's header), so that a long download or a stream
// (Server-Sent Events) counts what the server took, not how long the
// client listened. Requests with a large body (uploads) are not observed.
func (c *Controller) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxBody || (r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody) {
			next.ServeHTTP(w, r)
			return
		}
		fw := &firstByte{ResponseWriter: w, start: time.Now()}
		next.ServeHTTP(fw, r)
		now := time.Now()
		if fw.at.IsZero() { // nothing written: the server's answer is the end
			fw.at = now
		}
		c.Observe(now, fw.at.Sub(fw.start))
	})
}

// firstByte notes when the response's header is written.
type firstByte struct {
	http.ResponseWriter
	start, at time.Time
}

func (w *firstByte) mark() {
	if w.at.IsZero() {
		w.at = time.Now()
	}
}

func (w *firstByte) WriteHeader(code int) {
	if code >= 200 { // not an informational header (103 Early Hints)
		w.mark()
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *firstByte) Write(b []byte) (int, error) {
	w.mark()
	return w.ResponseWriter.Write(b)
}

// Flush lets streams flush through; Unwrap lets http.ResponseController
// reach the connection's other controls.
func (w *firstByte) Flush() {
	w.mark()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *firstByte) Unwrap() http.ResponseWriter { return w.ResponseWriter }
