package web

import (
	"context"
	"net"
	"net/http"
)

// Listener wraps l so that a response written whole (WriteWhole) reaches the
// kernel in one write. net/http buffers a response in 4 KiB: a 10 KiB body
// leaves it as two writes, two TCP segments and two wake-ups of the client,
// which on loopback cost a third of the request. Serve with ConnContext set
// on the http.Server, or WriteWhole falls back to a plain Write.
func Listener(l net.Listener) net.Listener { return listener{l} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &wholeConn{Conn: c}, nil
}

type connKey struct{}

// ConnContext is the http.Server's ConnContext for a Listener's connections.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if wc, ok := c.(*wholeConn); ok {
		return context.WithValue(ctx, connKey{}, wc)
	}
	return ctx
}

// wholeConn holds what is written to it between hold and release, and sends
// it in one write at release. Holding is confined to one WriteWhole call on
// the connection's handler goroutine (HTTP/1 writes a connection from one
// goroutine at a time), so nothing is ever held after a handler returns.
type wholeConn struct {
	net.Conn
	holding bool
	held    []byte
}

// maxHeld is the largest buffer a connection keeps between responses.
const maxHeld = 64 << 10

func (c *wholeConn) Write(p []byte) (int, error) {
	if c.holding {
		c.held = append(c.held, p...) // copied: the caller reuses p (bufio)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func (c *wholeConn) release() error {
	c.holding = false
	if len(c.held) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.held)
	if cap(c.held) > maxHeld {
		c.held = nil
	} else {
		c.held = c.held[:0]
	}
	return err
}

// WriteWhole writes body, the rest of the response, so that what net/http
// flushes meanwhile (the header and the body's first 4 KiB, and then the
// remainder) goes to the kernel in one write. What net/http still buffers
// afterwards (a small body) is flushed by net/http as usual.
func WriteWhole(w http.ResponseWriter, r *http.Request, body []byte) {
	c, _ := r.Context().Value(connKey{}).(*wholeConn)
	if c == nil || r.ProtoMajor != 1 {
		w.Write(body)
		return
	}
	c.holding = true
	defer c.release()
	w.Write(body)
}
