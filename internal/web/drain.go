package web

import (
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// FileLimit is the process's limit on open files (Go raises the soft limit
// to the hard one at start); 0 if unknown.
func FileLimit() int {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return int(min(l.Cur, 1<<30))
}

// Drain counts a server's open connections against its file limit and,
// past a high mark (60 % of it), shortens keep-alive to BusyIdle until they
// fall below a low mark (40 %): connections idle longer close, so that a
// rush of visitors who mostly think does not hold a file per visitor and
// run the server out of them (accept would fail and new visitors wait),
// while a page's style sheets and a form's redirect still reuse the
// connection. nginx does the like when it runs short: it closes idle
// keep-alive connections for new ones.
type Drain struct {
	open      atomic.Int64
	high, low int64
	busy      atomic.Bool
	log       *slog.Logger

	idleMu sync.Mutex
	idle   map[net.Conn]time.Time // net/http's idle connections, since when (ConnState)

	mu      sync.Mutex // orders the callbacks of changes
	changed []func(busy bool)
}

// NewDrain is a Drain for limit open files (FileLimit if 0); nil if the
// limit is unknown.
func NewDrain(limit int, log *slog.Logger) *Drain {
	if limit <= 0 {
		limit = FileLimit()
	}
	if limit <= 0 {
		return nil
	}
	return &Drain{high: int64(limit) * 6 / 10, low: int64(limit) * 4 / 10, log: log, idle: map[net.Conn]time.Time{}}
}

// BusyIdle is how long a connection stays idle while the Drain is busy.
const BusyIdle = time.Second

// ConnState is an http.Server's ConnState hook: it notes idle connections,
// which a busy Drain closes after BusyIdle.
func (d *Drain) ConnState(c net.Conn, st http.ConnState) {
	if d == nil {
		return
	}
	d.idleMu.Lock()
	defer d.idleMu.Unlock()
	if st == http.StateIdle {
		d.idle[c] = time.Now()
	} else {
		delete(d.idle, c)
	}
}

// sweep closes net/http's connections idle longer than BusyIdle while the
// Drain is busy. It closes them after letting go of the idle set: every
// connection's change of state waits on that lock, so closing thousands
// of sockets under it would hold up every request starting or ending
// meanwhile (not measured apart: see the commit that moved the closes).
func (d *Drain) sweep() {
	t := time.NewTicker(BusyIdle / 4)
	defer t.Stop()
	var old []net.Conn
	for range t.C {
		if !d.Busy() {
			return
		}
		old = old[:0]
		d.idleMu.Lock()
		for c, since := range d.idle {
			if time.Since(since) > BusyIdle {
				delete(d.idle, c)
				old = append(old, c)
			}
		}
		d.idleMu.Unlock()
		for _, c := range old {
			c.Close()
		}
		clear(old) // not to keep the closed connections from the collector
	}
}

// OnChange calls fn when keep-alive goes short (busy) or back.
func (d *Drain) OnChange(fn func(busy bool)) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.changed = append(d.changed, fn)
}

// Busy reports whether keep-alive is short.
func (d *Drain) Busy() bool { return d != nil && d.busy.Load() }

// Open is the number of connections counted.
func (d *Drain) Open() int64 { return d.open.Load() }

// Conn counts c until it is closed.
func (d *Drain) Conn(c net.Conn) net.Conn {
	if d == nil {
		return c
	}
	d.check(d.open.Add(1))
	return &drainConn{Conn: c, d: d}
}

func (d *Drain) check(open int64) {
	busy := d.busy.Load()
	if (busy || open <= d.high) && (!busy || open >= d.low) {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	open = d.open.Load()
	switch {
	case !d.busy.Load() && open > d.high:
		d.busy.Store(true)
		go d.sweep()
	case d.busy.Load() && open < d.low:
		d.busy.Store(false)
	default:
		return
	}
	if d.log != nil {
		d.log.Warn("open connections near the file limit: keep-alive", "off", d.busy.Load(), "open", open, "high", d.high, "low", d.low)
	}
	// Not under mu: a callback closes connections, which counts them.
	fns := slices.Clone(d.changed)
	go func() {
		for _, fn := range fns {
			fn(d.Busy())
		}
	}()
}

type drainConn struct {
	net.Conn
	d      *Drain
	closed atomic.Bool
}

func (c *drainConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.d.check(c.d.open.Add(-1))
	}
	return c.Conn.Close()
}
