package web

import (
	"context"
	"io"
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
// at a time); Release is deferred, and Recover releases what a panic left.
type wholeConn struct {
	net.Conn
	held *[]byte // from heldBufs while holding, else nil
	err  error   // a held write failed: the connection is broken
	pre  []byte  // read by the Front before it handed the connection over
}

// Read returns what the Front read first, then the connection's bytes.
func (c *wholeConn) Read(p []byte) (int, error) {
	if len(c.pre) > 0 {
		n := copy(p, c.pre)
		c.pre = c.pre[n:]
		if len(c.pre) == 0 {
			c.pre = nil
		}
		return n, nil
	}
	return c.Conn.Read(p)
}

// heldBufs are the buffers of held writes: taken at Hold and given back at
// Release, so that ten thousand idle streams keep none.
var heldBufs = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// maxHeld bounds what one connection holds: past it, what is held goes out
// (a large page or a burst of events becomes a few 64 KiB writes, not an
// unbounded buffer per stream).
const maxHeld = 64 << 10

func (c *wholeConn) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.held == nil {
		return c.Conn.Write(p)
	}
	if len(*c.held)+len(p) > maxHeld {
		if err := c.flushHeld(); err != nil {
			return 0, err
		}
		if len(p) > maxHeld {
			return c.Conn.Write(p)
		}
	}
	*c.held = append(*c.held, p...) // copied: the caller reuses p (bufio)
	return len(p), nil
}

// flushHeld writes what is held and keeps holding. A failure is kept, so that
// net/http sees it on its next write and closes the connection instead of
// answering the next request after a truncated one.
func (c *wholeConn) flushHeld() error {
	if len(*c.held) == 0 {
		return nil
	}
	_, err := c.Conn.Write(*c.held)
	*c.held = (*c.held)[:0]
	if err != nil {
		c.err = err
	}
	return err
}

// ReadFrom keeps *net.TCPConn's sendfile for files served whole
// (http.ServeContent), when nothing is held.
func (c *wholeConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok && c.held == nil && c.err == nil {
		return rf.ReadFrom(r)
	}
	return io.Copy(struct{ io.Writer }{c}, r)
}

// CloseWrite lets net/http half-close the connection before closing it (so
// that a refused upload's client reads the answer instead of a reset).
func (c *wholeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Held is a connection's writes held by Hold; the zero Held holds nothing.
type Held struct{ c *wholeConn }

// Hold holds what the response to r writes to its connection until Release,
// which sends it in one write: net/http buffers a response in 4 KiB, so a
// larger one, or a few events flushed together, would leave as several
// writes, several TCP segments and several wake-ups of the client. Without a
// Listener's connection (or over HTTP/2) it holds nothing. Defer Release.
func Hold(r *http.Request) Held {
	c := heldConn(r)
	if c == nil || r.ProtoMajor != 1 || c.held != nil {
		return Held{}
	}
	c.held = heldBufs.Get().(*[]byte)
	return Held{c}
}

func heldConn(r *http.Request) *wholeConn {
	c, _ := r.Context().Value(connKey{}).(*wholeConn)
	return c
}

// Release sends what was held, in one write, and reports its error.
func (h Held) Release() error {
	c := h.c
	if c == nil || c.held == nil {
		return nil
	}
	err := c.flushHeld()
	b := c.held
	c.held = nil
	if cap(*b) <= 2*maxHeld {
		heldBufs.Put(b)
	}
	return err
}

// releaseHeld sends what r's connection still holds (after a panic in a
// held span), so that what follows is not held forever.
func releaseHeld(r *http.Request) {
	if c := heldConn(r); c != nil {
		Held{c}.Release()
	}
}

// smallBody is a body that leaves with its header in one write of net/http's
// 4 KiB buffer without holding: a page's headers take under 1 KiB.
const smallBody = 2 << 10

// WriteWhole writes body, the rest of the response, so that the whole of it
// (the header and the body) goes to the kernel in one write: what net/http
// flushes meanwhile is held, and when the length is known (Content-Length
// set) what it still buffers is flushed into the held bytes too, so that a
// body just past net/http's 4 KiB buffer does not leave as a second write.
func WriteWhole(w http.ResponseWriter, r *http.Request, body []byte) {
	if len(body) <= smallBody {
		w.Write(body) // it and the header fit net/http's buffer: one write anyway
		return
	}
	h := Hold(r)
	defer h.Release()
	w.Write(body)
	if h.c != nil && len(w.Header()["Content-Length"]) > 0 {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}
