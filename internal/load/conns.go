package load

import (
	"context"
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
	people    sync.Map // *http.Transport -> struct{}: the people alive, for the drain
}

func newConnections(cfg Config) *connections {
	c := &connections{keepAlive: cfg.KeepAlive, drain: web.NewDrain(0, nil)}
	// Short of files, everyone's idle connections close at once: a
	// thinking person's connection otherwise stays for the keep-alive,
	// and 1,667 arrivals a second each holding one for 5 s ran the
	// generator out of files (its dials failed: "connect").
	c.drain.OnChange(func(busy bool) {
		if busy {
			c.people.Range(func(t, _ any) bool {
				t.(*http.Transport).CloseIdleConnections()
				return true
			})
		}
	})
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

func (c *connections) transport(idle int) *http.Transport {
	d := c.dialers[c.next.Add(1)%uint64(len(c.dialers))]
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return c.drain.Conn(nc), nil
	}
	return &http.Transport{
		Proxy: nil, DialContext: dial,
		MaxIdleConns: idle, MaxIdleConnsPerHost: idle, IdleConnTimeout: c.keepAlive,
		DisableCompression: true, // bodies are read as sent; gzip is asked for explicitly and not decoded
	}
}

// answered is called after each answer of a person's: short of files, their
// idle connection closes.
func (c *connections) answered(t *http.Transport) {
	if c.shared == nil && c.drain.Busy() {
		t.CloseIdleConnections()
	}
}

// person is one person's transport, and what to call when they leave.
func (c *connections) person() (*http.Transport, func()) {
	if c.shared != nil {
		return c.shared, func() {}
	}
	t := c.transport(6) // a browser keeps up to six connections to a host
	c.people.Store(t, struct{}{})
	return t, func() {
		c.people.Delete(t)
		t.CloseIdleConnections()
	}
}

func (c *connections) close() {
	if c.shared != nil {
		c.shared.CloseIdleConnections()
	}
}
