package web

import (
	"log/slog"
	"math"
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

// Drain counts a server's open connections against its file limit and
// shortens keep-alive as they near it, so that a rush of visitors who mostly
// think does not hold a file per visitor and run the server out of them
// (accept would fail and new visitors wait), while a page's style sheets
// and a form's redirect still reuse the connection. nginx does the like
// when it runs short: it closes idle keep-alive connections for new ones.
//
// Below a low mark (40 % of the limit) keep-alive is the owner's own;
// from there to a high mark (60 %) the time a connection may stay idle
// (IdleFor) falls smoothly from MaxIdle to BusyIdle, and past the high mark
// it is BusyIdle. Each connection that goes idle gets the allowance of the
// moment, and a sweep closes those that went idle under a longer one, the
// longest idle first and a bounded number a tick. The count so settles
// where arrivals and expiries balance. A switch that closed every idle
// connection at the high mark and kept keep-alive short until the low one
// (as this did until 2026-11-28) emptied half the files at once, every few
// seconds of a rush, on the generator's side and the server's, and slow
// answers followed.
type Drain struct {
	open      atomic.Int64
	high, low int64
	batch     int         // connections a sweep closes at most a tick
	busy      atomic.Bool // past the high mark, not yet below the low (logged)
	sweeping  atomic.Bool
	log       *slog.Logger

	idleMu sync.Mutex
	idle   map[net.Conn]time.Time // net/http's idle connections, since when (ConnState)

	mu       sync.Mutex
	sweepers []Sweeper
}

// A Sweeper ends up to max of its connections idle since before cutoff,
// the longest idle first (LongestIdle), and says how many it ended: a
// server's front, whose idle connections net/http's ConnState does not
// see, or a load generator's people.
type Sweeper func(cutoff time.Time, max int) int

// IdleConn is a connection idle since a time, for a Sweeper.
type IdleConn struct {
	net.Conn
	Since time.Time
}

// LongestIdle sorts cs the longest idle first and keeps max of them.
func LongestIdle(cs []IdleConn, max int) []IdleConn {
	if len(cs) > max {
		slices.SortFunc(cs, func(a, b IdleConn) int { return a.Since.Compare(b.Since) })
		clear(cs[max:])
		cs = cs[:max]
	}
	return cs
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
	return &Drain{high: int64(limit) * 6 / 10, low: int64(limit) * 4 / 10, batch: max(limit/80, 16),
		log: log, idle: map[net.Conn]time.Time{}}
}

const (
	// BusyIdle is how long a connection stays idle while the Drain is busy.
	BusyIdle = time.Second
	// MaxIdle is the idle allowance at the low mark; the server's own
	// keep-alive, if shorter, is the limit below it.
	MaxIdle = 2 * time.Minute
	// sweepEvery is how often a sweep looks at the idle connections.
	sweepEvery = BusyIdle / 4
)

// IdleFor is how long a connection that goes idle now may stay idle: a
// caller takes the lesser of it and its own keep-alive. Unlimited below the
// low mark (or without a Drain), BusyIdle from the high mark, and in
// between MaxIdle falling geometrically to BusyIdle: each connection more
// takes a little off.
func (d *Drain) IdleFor() time.Duration {
	if d == nil {
		return math.MaxInt64
	}
	return d.idleFor(d.open.Load())
}

func (d *Drain) idleFor(open int64) time.Duration {
	switch {
	case open >= d.high:
		return BusyIdle
	case open <= d.low:
		return math.MaxInt64
	}
	rest := float64(d.high-open) / float64(d.high-d.low) // 1 at the low mark, 0 at the high
	return time.Duration(float64(BusyIdle) * math.Pow(float64(MaxIdle)/float64(BusyIdle), rest))
}

// ConnState is an http.Server's ConnState hook: it notes idle connections,
// which the sweep closes when idle past IdleFor.
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

// OnSweep has each sweep also ask fn to end its connections idle too long.
func (d *Drain) OnSweep(fn Sweeper) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sweepers = append(d.sweepers, fn)
}

// sweep runs while the count is above the low mark: each tick it ends the
// connections idle longer than the allowance of the moment, up to batch of
// them, the longest idle first, net/http's and then the sweepers'. It
// closes net/http's after letting go of the idle set: every connection's
// change of state waits on that lock.
func (d *Drain) sweep() {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	var old []IdleConn
	for now := range t.C {
		if d.open.Load() <= d.low {
			d.sweeping.Store(false)
			// A connection counted since may have found it still sweeping.
			if d.open.Load() <= d.low || !d.sweeping.CompareAndSwap(false, true) {
				return
			}
		}
		cutoff := now.Add(-d.IdleFor())
		old = old[:0]
		d.idleMu.Lock()
		for c, since := range d.idle {
			if since.Before(cutoff) {
				old = append(old, IdleConn{c, since})
			}
		}
		old = LongestIdle(old, d.batch)
		for _, o := range old {
			delete(d.idle, o.Conn)
		}
		d.idleMu.Unlock()
		for _, o := range old {
			o.Close()
		}
		left := d.batch - len(old)
		clear(old) // not to keep the closed connections from the collector
		d.mu.Lock()
		sweepers := d.sweepers
		d.mu.Unlock()
		for _, fn := range sweepers {
			if left <= 0 {
				break
			}
			left -= fn(cutoff, left)
		}
	}
}

// Busy reports whether the count passed the high mark and has not yet
// fallen below the low one (each change is logged).
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
	if open > d.low && !d.sweeping.Load() && d.sweeping.CompareAndSwap(false, true) {
		go d.sweep()
	}
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
	case d.busy.Load() && open < d.low:
		d.busy.Store(false)
	default:
		return
	}
	switch {
	case d.log == nil:
	case d.busy.Load():
		d.log.Warn("open connections past the file limit's high mark: keep-alive "+BusyIdle.String(), "open", open, "high", d.high)
	default:
		d.log.Info("open connections below the file limit's low mark: keep-alive back", "open", open, "low", d.low)
	}
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
