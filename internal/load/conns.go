package load

import (
	"cmp"
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/web"
)

// connections hands each simulated person its transport: its own (a
// browser's connections, opened when needed and closed after the
// keep-alive), or the run's one shared pool.
type connections struct {
	// drain counts the open connections: short of files (the generator
	// stands for tens of thousands of browsers in one process), a person
	// closes theirs after each answer.
	drain     *web.Drain
	shared    *http.Transport
	keepAlive time.Duration
	dialers   []*net.Dialer // one per source address
	next      atomic.Uint64
	people    sync.Map    // *personal -> struct{}: the people alive, for the drain
	addr      string      // the target's host:port
	tls       *tls.Config // for an https target; nil for http
	// slots bounds the connections open at once to nine tenths of the
	// file limit: past it a dial waits for one to close, and the wait
	// counts in its request's time. Where the server answered slowly
	// (the burst's opening on a slower machine), busy connections that no
	// sweep may end took the generator to its limit, and its dials failed
	// ("too many open files": 1,304 and 16,839 runners lost in two runs).
	slots chan struct{}
}

func newConnections(cfg Config) *connections {
	c := &connections{keepAlive: cfg.KeepAlive, drain: web.NewDrain(cfg.files, nil), addr: hostPort(cfg.Target.Scheme, cfg.Target.Host)}
	if cfg.Target.Scheme == "https" {
		c.tls = &tls.Config{}
		if cfg.TLS != nil {
			c.tls = cfg.TLS.Clone()
		}
		c.tls.ServerName = cmp.Or(c.tls.ServerName, cfg.Target.Hostname())
		c.tls.NextProtos = []string{"http/1.1"}
	}
	// Near the file limit a connection stays idle for less than the
	// keep-alive (idleFor), and the drain's sweep ends those that went idle
	// under a longer allowance (sweepIdle): a thinking person's connection
	// otherwise stays for the keep-alive, and 1,667 arrivals a second each
	// holding one for 5 s ran the generator out of files (its dials failed:
	// "connect").
	c.drain.OnSweep(c.sweepIdle)
	files := cfg.files
	if files <= 0 {
		files = web.FileLimit()
	}
	c.slots = make(chan struct{}, max(files-files/10, 1))
	sources := cfg.Sources
	ip := net.ParseIP(cfg.Target.Hostname()).To4()
	if sources <= 0 {
		sources = 16
	}
	if ip == nil || !ip.IsLoopback() || cfg.Shared {
		sources = 1 // only IPv4 loopback has a /8 of addresses to bind
	}
	for i := range sources {
		// A browser waits for a connection as long as for an answer (a
		// full accept queue drops SYNs, retried after 1 s, 3 s, ...).
		d := &net.Dialer{Timeout: cfg.Timeout, KeepAlive: -1}
		if sources > 1 {
			d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+i%254))}
		}
		c.dialers = append(c.dialers, d)
	}
	if cfg.Shared {
		c.shared = c.transport(4096)
		c.shared.IdleConnTimeout = 30 * time.Second
	}
	return c
}

// idleFor is how long a person's connection stays idle: the keep-alive,
// and less as the generator nears its file limit (web.Drain.IdleFor).
func (c *connections) idleFor() time.Duration {
	return min(c.keepAlive, c.drain.IdleFor())
}

// sweepIdle ends up to max of the people's connections idle since before
// cutoff, the longest idle first (web.Drain.OnSweep).
func (c *connections) sweepIdle(cutoff time.Time, max int) int {
	if time.Since(cutoff) >= c.keepAlive {
		return 0 // none is kept that long: not worth visiting everyone
	}
	var old []web.IdleConn
	c.people.Range(func(p, _ any) bool {
		old = p.(*personal).idleSince(cutoff, old)
		return true
	})
	old = web.LongestIdle(old, max)
	ended := 0
	for _, o := range old {
		pc := o.Conn.(*personConn)
		if pc.owner.drop(pc, o.Since) {
			ended++
		}
	}
	return ended
}

// dialer is the next source address's dial, counted by the drain.
func (c *connections) dialer() func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := c.dialers[c.next.Add(1)%uint64(len(c.dialers))]
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		select {
		case c.slots <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			<-c.slots
			return nil, err
		}
		return c.drain.Conn(&slotConn{Conn: nc, slots: c.slots}), nil
	}
}

// slotConn gives its slot back when it is closed.
type slotConn struct {
	net.Conn
	slots chan struct{}
	once  sync.Once
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { <-c.slots })
	return err
}

func (c *connections) transport(idle int) *http.Transport {
	return &http.Transport{
		Proxy: nil, DialContext: c.dialer(),
		MaxIdleConns: idle, MaxIdleConnsPerHost: idle, IdleConnTimeout: c.keepAlive,
		TLSClientConfig: c.tls, DisableCompression: true, // bodies are read as sent; gzip is asked for explicitly and not decoded
	}
}

// person is one person's transport, and what to call when they leave.
func (c *connections) person() (http.RoundTripper, func()) {
	if c.shared != nil {
		return c.shared, func() {}
	}
	d := c.dialer()
	dial := func(ctx context.Context) (net.Conn, error) { return d(ctx, "tcp", c.addr) }
	if c.tls != nil {
		dial = tlsDial(dial, c.tls)
	}
	p := &personal{conns: c, dial: dial}
	c.people.Store(p, struct{}{})
	return p, func() {
		c.people.Delete(p)
		p.leave()
	}
}

func (c *connections) close() {
	if c.shared != nil {
		c.shared.CloseIdleConnections()
	}
}
