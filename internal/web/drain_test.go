package web

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"
)

// TestDrainEndsKeepAliveNearTheFileLimit: past 60 % of the limit the
// front closes its idle keep-alive connections and keeps new ones idle for
// a second at most, as does net/http behind it; below 40 % they stay again.
func TestDrainEndsKeepAliveNearTheFileLimit(t *testing.T) {
	s := &Site{Log: slog.New(slog.DiscardHandler)}
	pg := NewPage("text/plain", []byte("hot"), "")
	s.Hot("GET /hot", func(context.Context, HotRequest) (*Page, bool) { return pg, true })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := NewDrain(10, nil) // busy above 6 open, free again below 4
	front := s.Listener(ln, FrontOptions{ReadHeaderTimeout: 2 * time.Second, IdleTimeout: time.Minute, WriteTimeout: time.Second, Drain: d})
	srv := &http.Server{Handler: http.NotFoundHandler(), ConnContext: ConnContext, ConnState: d.ConnState}
	go srv.Serve(front)
	t.Cleanup(func() { srv.Close() })

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
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		cc := conn{c, bufio.NewReader(c)}
		if err := get(cc, cc.r); err != nil {
			t.Fatal(err)
		}
		return cc
	}
	closed := func(c conn, wait time.Duration) bool { // the server ended it: a read sees EOF
		c.SetReadDeadline(time.Now().Add(wait))
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
	cs = append(cs, dial()) // the seventh: busy
	// The idle ones close at once until the count is below the low mark; one
	// still answering then may stay, as keep-alive is free again.
	waitFor(t, func() bool { return d.Open() < 4 && !d.Busy() })
	ended := 0
	for _, c := range cs {
		if closed(c, 100*time.Millisecond) {
			ended++
		}
		c.Close()
	}
	if ended < 4 {
		t.Errorf("%d of 7 idle connections ended while short of files; want at least 4", ended)
	}
	waitFor(t, func() bool { return !d.Busy() && d.Open() == 0 })
	c := dial()
	defer c.Close()
	time.Sleep(BusyIdle + 200*time.Millisecond)
	if err := get(c, c.r); err != nil {
		t.Errorf("no keep-alive once files are free again: %v", err)
	}

	// net/http's connections (a request the front hands over) too.
	var cold []conn
	for range 7 {
		nc, err := net.Dial("tcp", ln.Addr().String())
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
	// The sweep closes those idle past BusyIdle until the count is below
	// the low mark; the last one may outlive it, as keep-alive is free again.
	deadline := time.Now().Add(3 * time.Second)
	for d.Open() >= 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if d.Open() >= 4 || d.Busy() {
		t.Errorf("net/http's idle connections kept while short of files: %d open, busy %v", d.Open(), d.Busy())
	}
	ended = 0
	for _, c := range cold {
		if closed(c, 100*time.Millisecond) {
			ended++
		}
		c.Close()
	}
	if ended < 4 {
		t.Errorf("%d of net/http's 7 idle connections ended; want at least 4", ended)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for range 200 {
		if ok() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not met within 2 s")
}
