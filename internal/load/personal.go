package load

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/web"
)

// personal is one person's connections to the target, as a browser keeps
// them: opened when needed, up to six kept between requests, each closed
// when idle past the keep-alive. Requests are written and answers read on
// the person's own goroutine, with net/http's Request.Write and
// ReadResponse: an http.Transport's two goroutines a connection, its pool
// and the hand-offs between them were a third of a busy generator's CPU,
// where tens of thousands of people each send one request at a time.
type personal struct {
	conns *connections
	dial  func(ctx context.Context) (net.Conn, error)

	mu   sync.Mutex
	idle []*personConn // the most recently used last
	gone bool          // the person left: nothing is kept any more
}

// personConn is one connection and its idle timer.
type personConn struct {
	net.Conn
	owner *personal
	timer *time.Timer   // closes it when idle past its keep
	since time.Time     // idle since: a late timer of an earlier idle period does nothing
	keep  time.Duration // how long it may stay idle this time
}

const keptPerPerson = 6 // a browser keeps up to six connections to a host

var (
	requestWriters sync.Pool // *bufio.Writer: held only while a request is written
	answerReaders  sync.Pool // *bufio.Reader: held while an answer is read
)

func (p *personal) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	pc, reused, err := p.take(ctx)
	if err != nil {
		return nil, err
	}
	res, stale, err := p.exchange(ctx, pc, req)
	if err != nil && stale && reused && replayable(req) {
		// The kept connection had closed (the server's keep-alive ran
		// out first): a browser sends the request again on a new one.
		if req.GetBody != nil {
			if req.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		if pc, err = p.dialConn(ctx); err != nil {
			return nil, err
		}
		res, _, err = p.exchange(ctx, pc, req)
	}
	return res, err
}

// replayable is net/http's rule: a request with no body, or one whose body
// can be had again, of an idempotent method or carrying an idempotency key.
func replayable(req *http.Request) bool {
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case "", http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	_, a := req.Header["Idempotency-Key"]
	_, b := req.Header["X-Idempotency-Key"]
	return a || b
}

// exchange writes req on pc and reads the answer's head; the body, once
// read to its end or closed, gives the connection back. stale reports a
// failure before the answer's first byte that was not a timeout: the
// connection had closed.
func (p *personal) exchange(ctx context.Context, pc *personConn, req *http.Request) (res *http.Response, stale bool, err error) {
	if dl, ok := ctx.Deadline(); ok {
		pc.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { pc.SetDeadline(time.Unix(1, 0)) }) // unblocks the reads
	bw, _ := requestWriters.Get().(*bufio.Writer)
	if bw == nil {
		bw = bufio.NewWriterSize(pc, 4<<10)
	} else {
		bw.Reset(pc)
	}
	if err = req.Write(bw); err == nil {
		err = bw.Flush()
	}
	bw.Reset(nil)
	requestWriters.Put(bw)
	stale = err != nil
	var br *bufio.Reader
	if err == nil {
		if br, _ = answerReaders.Get().(*bufio.Reader); br == nil {
			br = bufio.NewReaderSize(pc, 4<<10)
		} else {
			br.Reset(pc)
		}
		if _, err = br.Peek(1); err != nil {
			stale = ctx.Err() == nil && !isTimeout(err)
		} else {
			// As net/http's Transport does: a scenario may time the first
			// byte (httptrace on the request's context).
			if t := httptrace.ContextClientTrace(ctx); t != nil && t.GotFirstResponseByte != nil {
				t.GotFirstResponseByte()
			}
			res, err = http.ReadResponse(br, req)
		}
	}
	if err != nil {
		if br != nil {
			br.Reset(nil)
			answerReaders.Put(br)
		}
		stop()
		pc.Close()
		return nil, stale, err
	}
	res.Body = &personBody{ReadCloser: res.Body, pc: pc, br: br, stop: stop, keep: !res.Close && !req.Close}
	return res, false, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// personBody gives its connection back when closed: kept if the answer was
// read whole and nothing followed it, closed otherwise.
type personBody struct {
	io.ReadCloser
	pc   *personConn
	br   *bufio.Reader
	stop func() bool
	keep bool
	done bool
}

func (b *personBody) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	err := b.ReadCloser.Close() // reads what is left, as a browser does
	b.stop()
	keep := b.keep && err == nil && b.br.Buffered() == 0
	b.br.Reset(nil)
	answerReaders.Put(b.br)
	b.pc.owner.release(b.pc, keep)
	return err
}

// take gives an idle connection (reused) or a new one.
func (p *personal) take(ctx context.Context) (*personConn, bool, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		pc := p.idle[n-1]
		p.idle = p.idle[:n-1]
		pc.timer.Stop()
		p.mu.Unlock()
		return pc, true, nil
	}
	p.mu.Unlock()
	pc, err := p.dialConn(ctx)
	return pc, false, err
}

func (p *personal) dialConn(ctx context.Context) (*personConn, error) {
	nc, err := p.dial(ctx)
	if err != nil {
		return nil, err
	}
	return &personConn{Conn: nc, owner: p}, nil
}

// release keeps pc for the next request, or closes it: an answer not read
// whole, a person gone or six kept already. It stays idle for the
// keep-alive, or near the generator's file limit for less (down to
// web.BusyIdle), as the server's own connections then: a page's
// style sheets and a form's redirect still reuse it, where closing it
// after each answer made every request of a rush's opening a new
// connection on both sides.
func (p *personal) release(pc *personConn, keep bool) {
	pc.SetDeadline(time.Time{})
	p.mu.Lock()
	if !keep || p.gone || len(p.idle) >= keptPerPerson {
		p.mu.Unlock()
		pc.Close()
		return
	}
	pc.since, pc.keep = time.Now(), p.conns.idleFor()
	if pc.timer == nil {
		pc.timer = time.AfterFunc(pc.keep, func() { p.expire(pc) })
	} else {
		pc.timer.Reset(pc.keep)
	}
	p.idle = append(p.idle, pc)
	p.mu.Unlock()
}

// expire closes pc if it has been idle for its keep.
func (p *personal) expire(pc *personConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(pc.since) >= pc.keep { // else taken and kept again since the timer was set
		p.unkeep(pc)
	}
}

// unkeep closes pc if it is one of the idle ones; under p.mu.
func (p *personal) unkeep(pc *personConn) bool {
	for i, c := range p.idle {
		if c == pc {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			pc.timer.Stop()
			pc.Close()
			return true
		}
	}
	return false
}

// idleSince appends the person's connections idle since before cutoff.
func (p *personal) idleSince(cutoff time.Time, to []web.IdleConn) []web.IdleConn {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pc := range p.idle {
		if pc.since.Before(cutoff) {
			to = append(to, web.IdleConn{Conn: pc, Since: pc.since})
		}
	}
	return to
}

// drop closes pc if it is still idle since then (not taken meanwhile).
func (p *personal) drop(pc *personConn, since time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pc.since.Equal(since) && p.unkeep(pc)
}

// leave closes everything kept: the person is done.
func (p *personal) leave() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gone = true
	for _, pc := range p.idle {
		pc.timer.Stop()
		pc.Close()
	}
	clear(p.idle)
	p.idle = p.idle[:0]
}

// tlsDial wraps dial with a TLS handshake for https targets.
func tlsDial(dial func(ctx context.Context) (net.Conn, error), cfg *tls.Config) func(ctx context.Context) (net.Conn, error) {
	return func(ctx context.Context) (net.Conn, error) {
		nc, err := dial(ctx)
		if err != nil {
			return nil, err
		}
		tc := tls.Client(nc, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			tc.Close()
			return nil, err
		}
		return tc, nil
	}
}
