package web

import (
	"context"
	"net"
	"net/http"
	"sync"
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

// wholeConn holds what is written to it between Hold and Release, and sends
// it in one write at Release. Holding is confined to one handler's span on
// the connection's goroutine (HTTP/1 writes a connection from one goroutine
// at a time), so nothing is ever held after a handler returns.
type wholeConn struct {
	net.Conn
	held *[]byte // from heldBufs while holding, else nil
}

// heldBufs are the buffers of held writes: taken at Hold and given back at
// Release, so that ten thousand idle streams keep none.
var heldBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// maxHeld is the largest buffer kept in heldBufs.
const maxHeld = 256 << 10

func (c *wholeConn) Write(p []byte) (int, error) {
	if c.held != nil {
		*c.held = append(*c.held, p...) // copied: the caller reuses p (bufio)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// Held is a connection's writes held by Hold; the zero Held holds nothing.
type Held struct{ c *wholeConn }

// Hold holds what the response to r writes to its connection until Release,
// which sends it in one write: net/http buffers a response in 4 KiB, so a
// larger one, or a few events flushed together, would leave as several
// writes, several TCP segments and several wake-ups of the client. Without a
// Listener's connection (or over HTTP/2) it holds nothing.
func Hold(r *http.Request) Held {
	c, _ := r.Context().Value(connKey{}).(*wholeConn)
	if c == nil || r.ProtoMajor != 1 || c.held != nil {
		return Held{}
	}
	c.held = heldBufs.Get().(*[]byte)
	return Held{c}
}

// Release sends what was held, in one write, and reports its error.
func (h Held) Release() error {
	c := h.c
	if c == nil || c.held == nil {
		return nil
	}
	b := c.held
	c.held = nil
	var err error
	if len(*b) > 0 {
		_, err = c.Conn.Write(*b)
	}
	if cap(*b) <= maxHeld {
		*b = (*b)[:0]
		heldBufs.Put(b)
	}
	return err
}

// WriteWhole writes body, the rest of the response, so that what net/http
// flushes meanwhile (the header and the body's first 4 KiB, and then the
// remainder) goes to the kernel in one write. What net/http still buffers
// afterwards (a small body) is flushed by net/http as usual.
func WriteWhole(w http.ResponseWriter, r *http.Request, body []byte) {
	h := Hold(r)
	defer h.Release()
	w.Write(body)
}
