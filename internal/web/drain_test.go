package web

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// TestDrainEndsKeepAliveNearTheFileLimit: past 60 % of the limit the
// front's idle keep-alive connections close once idle for a second, as do
// net/http's behind it; below 40 % they stay again. In a synctest bubble
// over in-memory connections: the seconds idle are the bubble's, and what
// a sweep did is known once everything waits (synctest.Wait).
func TestDrainEndsKeepAliveNearTheFileLimit(t *testing.T) {
	synctest.Test(t, drainEndsKeepAliveNearTheFileLimit)
}

func drainEndsKeepAliveNearTheFileLimit(t *testing.T) {
	d := NewDrain(12, nil) // idle 1 s allowed from 7 open, busy above 7, free again below 4
	ln := drainServer(t, d)

	// get sends a request on c and reads the answer.
	get := func(c net.Conn, r *bufio.Reader) error {
		if _, err := io.WriteString(c, "GET /hot HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return err
		}
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return err
	}
	type conn struct {
		net.Conn
		r *bufio.Reader
	}
	dial := func() conn {
		c, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		cc := conn{c, bufio.NewReader(c)}
		if err := get(cc, cc.r); err != nil {
			t.Fatal(err)
		}
		return cc
	}
	closed := func(c conn) bool { // the server ended it: a read sees EOF, not the deadline
		c.SetReadDeadline(time.Now().Add(time.Millisecond))
		_, err := c.r.ReadByte()
		return err == io.EOF
	}
	var cs []conn
	for range 6 {
		cs = append(cs, dial())
	}
	if d.Busy() || d.Open() != 6 {
		t.Fatalf("busy %v with %d open; want free with 6", d.Busy(), d.Open())
	}
	// Idle a second (6 open allow 4.9 s), so that all six are past
	// BusyIdle when the count passes the high mark.
	time.Sleep(BusyIdle + 200*time.Millisecond)
	synctest.Wait()
	if d.Open() != 6 {
		t.Fatalf("%d open after %v idle with 6 (4.9 s allowed); want 6", d.Open(), BusyIdle)
	}
	cs = append(cs, dial(), dial()) // the seventh and eighth: busy
	// The next sweep ends the six idle past BusyIdle (one batch), which
	// takes the count below the low mark: the two fresh ones stay, as
	// keep-alive is free again.
	time.Sleep(sweepEvery)
	synctest.Wait()
	if d.Open() != 2 || d.Busy() {
		t.Errorf("a sweep after passing the high mark: %d open, busy %v; want 2, free", d.Open(), d.Busy())
	}
	ended := 0
	for _, c := range cs {
		if closed(c) {
			ended++
		}
		c.Close()
	}
	if ended != 6 {
		t.Errorf("%d of 8 idle connections ended while short of files; want the 6 idle past %v", ended, BusyIdle)
	}
	synctest.Wait()
	if d.Busy() || d.Open() != 0 {
		t.Fatalf("all closed: %d open, busy %v; want 0, free", d.Open(), d.Busy())
	}
	c := dial()
	time.Sleep(BusyIdle + 200*time.Millisecond)
	if err := get(c, c.r); err != nil {
		t.Errorf("no keep-alive once files are free again: %v", err)
	}
	c.Close()
	synctest.Wait()

	// net/http's connections (a request the front hands over) too.
	var cold []conn
	for i := range 7 {
		if i == 6 { // the six before it idle past BusyIdle when the count passes the high mark
			time.Sleep(BusyIdle + 200*time.Millisecond)
		}
		nc, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		cc := conn{nc, bufio.NewReader(nc)}
		io.WriteString(nc, "GET /cold HTTP/1.1\r\nHost: x\r\n\r\n")
		res, err := http.ReadResponse(cc.r, nil)
		if err != nil || res.StatusCode != http.StatusNotFound {
			t.Fatalf("cold request: %v", err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		cold = append(cold, cc)
	}
	// The next sweep ends the six idle past BusyIdle, which takes the
	// count below the low mark: the last one stays.
	time.Sleep(sweepEvery)
	synctest.Wait()
	if d.Open() != 1 || d.Busy() {
		t.Errorf("net/http's idle connections after a sweep while short of files: %d open, busy %v; want 1, free", d.Open(), d.Busy())
	}
	ended = 0
	for _, c := range cold {
		if closed(c) {
			ended++
		}
		c.Close()
	}
	if ended != 6 {
		t.Errorf("%d of net/http's 7 idle connections ended; want the 6 idle past %v", ended, BusyIdle)
	}
}

// drainServer serves GET /hot from the front and anything else from
// net/http (404), both counted by d, on in-memory connections.
func drainServer(t *testing.T, d *Drain) *pipeListener {
	s := &Site{Log: slog.New(slog.DiscardHandler)}
	pg := NewPage("text/plain", []byte("hot"), "")
	s.Hot("GET /hot", func(context.Context, HotRequest) (*Page, bool) { return pg, true })
	ln := newPipeListener()
	// Last: once every connection is closed, the sweep ends at its next
	// tick, and the bubble is left with no goroutine.
	t.Cleanup(func() { time.Sleep(sweepEvery) })
	front := s.Listener(ln, FrontOptions{ReadHeaderTimeout: 2 * time.Second, IdleTimeout: time.Minute, WriteTimeout: time.Second, Drain: d})
	srv := &http.Server{Handler: http.NotFoundHandler(), ConnContext: ConnContext, ConnState: d.ConnState}
	go srv.Serve(front)
	t.Cleanup(func() { srv.Close() })
	return ln
}

// pipeListener is a net.Listener of in-memory connections (net.Pipe): a
// goroutine waiting on one is durably blocked, so that a synctest bubble's
// clock runs while the server and the test wait, which it does not over
// sockets.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Dial connects to the listener, whose Accept returns the other end.
func (l *pipeListener) Dial() (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// TestDrainIdleForFallsSmoothly: no limit below the low mark, BusyIdle
// from the high mark, and in between each connection more takes off a
// little: a step of a switch is what emptied half the files at once.
func TestDrainIdleForFallsSmoothly(t *testing.T) {
	d := NewDrain(100, nil) // low 40, high 60
	prev := d.idleFor(40)
	if prev != math.MaxInt64 {
		t.Fatalf("at the low mark: %v; want no limit", prev)
	}
	if got := d.idleFor(41); got > MaxIdle || got < MaxIdle*3/4 {
		t.Errorf("just past the low mark: %v; want about %v", got, MaxIdle)
	}
	prev = d.idleFor(41)
	for open := int64(42); open < 60; open++ {
		got := d.idleFor(open)
		if got >= prev || float64(prev)/float64(got) > 1.3 {
			t.Errorf("%d open: %v after %v; want a little less", open, got, prev)
		}
		prev = got
	}
	if prev > 2*BusyIdle {
		t.Errorf("just short of the high mark: %v; want about %v", prev, BusyIdle)
	}
	for _, open := range []int64{60, 80, 100} {
		if got := d.idleFor(open); got != BusyIdle {
			t.Errorf("%d open: %v; want %v", open, got, BusyIdle)
		}
	}
	var none *Drain
	if got := none.IdleFor(); got != math.MaxInt64 {
		t.Errorf("no drain: %v; want no limit", got)
	}
}

func TestLongestIdleFirst(t *testing.T) {
	t0 := time.Now()
	var cs []IdleConn
	for _, s := range []int{5, 1, 9, 3, 7, 2} {
		cs = append(cs, IdleConn{Since: t0.Add(time.Duration(s) * time.Second)})
	}
	got := LongestIdle(cs, 3)
	if len(got) != 3 || got[0].Since.Sub(t0) != time.Second || got[1].Since.Sub(t0) != 2*time.Second || got[2].Since.Sub(t0) != 3*time.Second {
		t.Errorf("longest idle 3 of 6: %v; want those idle since 1, 2, 3 s", got)
	}
	if got := LongestIdle(cs[:2], 3); len(got) != 2 {
		t.Errorf("3 of 2: %d; want both", len(got))
	}
}

// TestDrainSweepsTheLongestIdleFirst: past the high mark the sweep ends
// the connections idle longest, a batch a tick, and stops once the count
// is low enough that the allowance exceeds how long the rest have waited:
// it does not empty the files.
func TestDrainSweepsTheLongestIdleFirst(t *testing.T) {
	synctest.Test(t, drainSweepsTheLongestIdleFirst)
}

func drainSweepsTheLongestIdleFirst(t *testing.T) {
	d := NewDrain(100, nil) // low 40, high 60, 16 a tick
	ln := drainServer(t, d)
	var ended atomic.Int32
	dial := func() *atomic.Bool {
		c, err := ln.Dial()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		r := bufio.NewReader(c)
		io.WriteString(c, "GET /hot HTTP/1.1\r\nHost: x\r\n\r\n")
		res, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		closed := new(atomic.Bool)
		go func() {
			r.ReadByte() // EOF when the server ends it
			closed.Store(true)
			ended.Add(1)
		}()
		return closed
	}
	var old, fresh []*atomic.Bool
	for range 45 { // allowed 36 s idle at 45 open
		old = append(old, dial())
	}
	time.Sleep(BusyIdle + 100*time.Millisecond)
	for range 20 { // 65 open: BusyIdle
		fresh = append(fresh, dial())
	}
	// The next sweep ends one batch, which takes the count to 49, where a
	// connection may idle 14 s: the sweeps after it have nothing to end.
	time.Sleep(3 * sweepEvery)
	synctest.Wait()
	if n := ended.Load(); n != 16 {
		t.Errorf("%d connections ended; want one batch of 16", n)
	}
	if n := d.Open(); n != 49 {
		t.Errorf("%d open after the sweep; want 49", n)
	}
	for i, c := range fresh {
		if c.Load() {
			t.Errorf("fresh connection %d ended before those idle longer", i)
		}
	}
	n := 0
	for _, c := range old {
		if c.Load() {
			n++
		}
	}
	if n != 16 {
		t.Errorf("%d of the connections idle longest ended; want 16", n)
	}
}
