package web

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Front answers the hot lane's hits (Site.Hot) straight from the connection,
// before net/http: a visitor's GET of a cached page is read, answered with
// the page's header block (made once per page) and its bytes in one write,
// and the connection waits for its next request. Anything else, from the
// first request that is not such a hit on, is handed to net/http with the
// bytes read so far, and net/http serves the connection from then on.
//
// Why: on one core net/http's request parsing, header maps and header
// sorting are a third of a cached page's cost; with them the site reached
// 0.70-0.87 of nginx serving the same bytes, and a bare net/http handler of
// the same bytes no better. The front parses only the simplest requests, and
// strictly: a request it is not certain of (HTTP/1.0, a body, a cookie but
// on a HotAll route, a query, an escaped or unusual path, an odd header, a
// header block past 4 KiB) goes to net/http untouched, so net/http stays the one judge of
// anything unusual. The answer is the one the chain gives (TestFront compares
// them byte for byte): the same headers, metrics and access-log line.
type Front struct {
	site    *Site
	ln      net.Listener
	proxies Proxies
	opts    FrontOptions

	handoff chan net.Conn
	done    chan struct{}
	closing atomic.Bool
	once    sync.Once
	ids     *requestIDs

	mu    sync.Mutex
	conns map[*frontConn]struct{}
}

// FrontOptions are the timeouts of the front's connections, those of the
// http.Server behind it.
type FrontOptions struct {
	ReadHeaderTimeout time.Duration // from a request's first byte to its end
	IdleTimeout       time.Duration // waiting for the next request
	WriteTimeout      time.Duration // writing one answer
	Proxies           Proxies       // whose X-Forwarded-Proto is believed
	// Drain, if set, counts the connections; near the file limit the front
	// keeps them idle for its IdleFor at most.
	Drain *Drain
}

// Listener wraps l so that the site's hot pages are answered by a Front and
// every other connection reaches net/http, as a connection whose whole
// writes (WriteWhole) leave in one write. Serve it with ConnContext set on
// the http.Server. Without hot routes there is no front.
func (s *Site) Listener(l net.Listener, opts FrontOptions) net.Listener {
	if len(s.hotExact) == 0 && len(s.hotWild) == 0 {
		return Listener(l)
	}
	f := &Front{site: s, ln: l, opts: opts, proxies: opts.Proxies, handoff: make(chan net.Conn),
		done: make(chan struct{}), ids: newRequestIDs(), conns: map[*frontConn]struct{}{}}
	opts.Drain.OnSweep(f.sweepIdle)
	go f.acceptLoop()
	return f
}

// sweepIdle ends up to max of the connections waiting for their next
// request since before cutoff, the longest waiting first (Drain.OnSweep).
func (f *Front) sweepIdle(cutoff time.Time, max int) int {
	var old []IdleConn
	f.mu.Lock()
	for c := range f.conns {
		c.mu.Lock()
		if c.idle && c.since.Before(cutoff) {
			old = append(old, IdleConn{c, c.since})
		}
		c.mu.Unlock()
	}
	f.mu.Unlock()
	old = LongestIdle(old, max)
	for _, o := range old {
		o.Conn.(*frontConn).wake()
	}
	return len(old)
}

// Accept returns the next connection for net/http.
func (f *Front) Accept() (net.Conn, error) {
	select {
	case c := <-f.handoff:
		return c, nil
	case <-f.done:
		return nil, net.ErrClosed
	}
}

// Addr is the listener's address.
func (f *Front) Addr() net.Addr { return f.ln.Addr() }

// Close stops accepting and closes the front's idle connections (a
// connection answering finishes its answer first), as http.Server.Shutdown
// does with its own.
func (f *Front) Close() error {
	var err error
	f.once.Do(func() {
		f.closing.Store(true)
		close(f.done)
		err = f.ln.Close()
		f.mu.Lock()
		for c := range f.conns {
			c.wake()
		}
		f.mu.Unlock()
	})
	return err
}

func (f *Front) acceptLoop() {
	var delay time.Duration
	for {
		c, err := f.ln.Accept()
		if err != nil {
			if f.closing.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of file descriptors and the like: wait, as net/http does.
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			f.site.Log.Warn("accept", "err", err, "retry_in", delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		go f.serve(f.opts.Drain.Conn(c))
	}
}

// frontConn is a connection the front serves.
type frontConn struct {
	net.Conn
	mu     sync.Mutex // orders setting the read deadline against wake
	closed bool       // woken by Close or the Drain: read no more
	idle   bool       // waiting for a next request (Drain may end it)
	since  time.Time  // when it began waiting, if idle
}

// wake ends the connection's wait for a request (Close, or the Drain's sweep).
func (c *frontConn) wake() {
	c.mu.Lock()
	c.closed = true
	c.Conn.SetReadDeadline(time.Unix(1, 0))
	c.mu.Unlock()
}

// active notes that the connection no longer waits for a request.
func (c *frontConn) active() {
	c.mu.Lock()
	c.idle = false
	c.mu.Unlock()
}

// readDeadline sets the deadline of the next read, unless Close came first;
// idle says the read waits for a next request.
func (c *frontConn) readDeadline(t time.Time, idle bool) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.idle = idle
	if idle {
		c.since = time.Now()
	}
	c.Conn.SetReadDeadline(t)
	return true
}

// frontBufSize bounds a request the front reads; a larger header block goes
// to net/http (which allows up to MaxHeaderBytes).
const frontBufSize = 4 << 10

var frontBufs = sync.Pool{New: func() any { b := make([]byte, frontBufSize); return &b }}

func (f *Front) serve(nc net.Conn) {
	c := &frontConn{Conn: nc}
	f.mu.Lock()
	if f.closing.Load() {
		f.mu.Unlock()
		nc.Close()
		return
	}
	f.conns[c] = struct{}{}
	f.mu.Unlock()
	bp := frontBufs.Get().(*[]byte)
	buf := *bp
	n := 0 // bytes of buf read and not yet answered
	var out []byte
	handed := false
	defer func() {
		f.mu.Lock()
		delete(f.conns, c)
		f.mu.Unlock()
		if !handed {
			nc.Close()
		}
		frontBufs.Put(bp)
	}()
	first := true
	for {
		end := bytes.Index(buf[:n], crlf2)
		if end < 0 {
			if n == len(buf) || bareLF(buf[:n]) { // a large header block, or lines net/http reads
				handed = f.handOff(nc, buf[:n])
				return
			}
			wait, idle := f.opts.ReadHeaderTimeout, n == 0 && !first
			if idle {
				wait = min(f.opts.IdleTimeout, f.opts.Drain.IdleFor()) // shorter when short of files
			}
			if !c.readDeadline(deadline(wait), idle) {
				return
			}
			k, err := nc.Read(buf[n:])
			n += k
			if err != nil {
				if n > 0 && !f.closing.Load() && !isTimeout(err) {
					// The client half-closed after a request: net/http
					// answers or refuses what it sent.
					handed = f.handOff(nc, buf[:n])
				}
				return
			}
			if idle {
				c.active() // a request came: the Drain's sweep passes it by
			}
			continue
		}
		first = false
		end += len(crlf2)
		var keep bool
		out, keep = f.answer(nc, buf[:end], out)
		if !keep {
			if out == nil { // not a hot hit: net/http's from here on
				handed = f.handOff(nc, buf[:n])
			}
			return
		}
		n = copy(buf, buf[end:n])
	}
}

var crlf2 = []byte("\r\n\r\n")

// bareLF reports whether b has a line ended by LF alone (net/http reads
// those; the front does not).
func bareLF(b []byte) bool {
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			return true
		}
	}
	return false
}

func deadline(d time.Duration) time.Time {
	if d <= 0 {
		return time.Time{}
	}
	return time.Now().Add(d)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// handOff gives nc to net/http with the bytes read from it so far.
func (f *Front) handOff(nc net.Conn, read []byte) bool {
	c := &wholeConn{Conn: nc, pre: bytes.Clone(read)}
	select {
	case f.handoff <- c:
		return true
	case <-f.done:
		return false
	}
}

// frontReq is what the front reads of a request.
type frontReq struct {
	method, path   string
	query          string // the raw query, without its "?"
	inm, id        string // If-None-Match (joined), X-Request-Id (first)
	gzip, gzipSeen bool   // gzip allowed; a value listed gzip (the first decides)
	close, https   bool
	cookie         bool // the request carries cookies: only a HotAll route is the front's
	hasINM, hasID  bool
}

// answer answers req, a whole request's header block, if it is a hot hit,
// and reports whether the connection stays with the front. out is a buffer
// it may reuse; a nil out with keep false means "hand the connection off".
func (f *Front) answer(nc net.Conn, req []byte, out []byte) ([]byte, bool) {
	start := time.Now()
	r, ok := f.parse(req, nc)
	if !ok {
		return nil, false
	}
	rt, hr := f.site.hotMatch(r.path, r.query)
	if rt == nil || (r.cookie && !rt.all) {
		return nil, false
	}
	pg, ok := f.site.hotFind(context.Background(), rt, hr)
	if !ok || (pg.Gzip != nil && !r.gzip) { // a client refusing gzip: net/http inflates
		return nil, false
	}
	notMod := r.hasINM && etagMatch(r.inm, pg.ETag)
	head := pg.frontHeader(r.path, r.https, notMod)
	out = append(out[:0], head...)
	out = append(out, "Date: "...)
	out = append(out, httpDate()...)
	out = append(out, "\r\n"...)
	if r.hasID {
		out = append(out, "X-Request-Id: "...)
		out = append(out, r.id...)
		out = append(out, "\r\n"...)
	}
	if r.close {
		out = append(out, "Connection: close\r\n"...)
	}
	out = append(out, "\r\n"...)
	status, size := http.StatusOK, 0
	var body []byte
	if notMod {
		status = http.StatusNotModified
	} else {
		body = pg.Gzip
		if body == nil {
			body = pg.Body
		}
		if r.method == http.MethodHead {
			body = nil
		}
		size = len(body) // what was written, as the chain's log counts it
	}
	if f.opts.WriteTimeout > 0 {
		nc.SetWriteDeadline(time.Now().Add(f.opts.WriteTimeout))
	}
	var err error
	if len(out)+len(body) <= frontBufSize {
		out = append(out, body...)
		_, err = nc.Write(out)
	} else {
		bufs := net.Buffers{out, body}
		_, err = bufs.WriteTo(nc) // writev: one system call
	}
	d := time.Since(start)
	rt.observe(status, d)
	if log := f.site.Log; log.Enabled(context.Background(), slog.LevelInfo) {
		id := r.id
		if !r.hasID {
			id = f.ids.next()
		}
		logLine(context.Background(), log, id, r.method, r.path, status, size, d)
	}
	return out, err == nil && !r.close
}

// parse reads req strictly; false leaves it to net/http.
func (f *Front) parse(req []byte, nc net.Conn) (frontReq, bool) {
	var r frontReq
	line, rest, _ := bytes.Cut(req, crlf)
	sp1 := bytes.IndexByte(line, ' ')
	if sp1 < 0 {
		return r, false
	}
	switch string(line[:sp1]) {
	case http.MethodGet:
		r.method = http.MethodGet
	case http.MethodHead:
		r.method = http.MethodHead
	default:
		return r, false
	}
	target, proto, ok := bytes.Cut(line[sp1+1:], sp)
	if !ok || string(proto) != "HTTP/1.1" {
		return r, false
	}
	target, query, _ := bytes.Cut(target, question)
	if !plainPath(target) || !plainQuery(query) {
		return r, false
	}
	r.path, r.query = string(target), string(query)
	var host, xfp int
	for len(rest) > 2 { // the block ends with an empty line
		var h []byte
		h, rest, _ = bytes.Cut(rest, crlf)
		colon := bytes.IndexByte(h, ':')
		if colon <= 0 {
			return r, false
		}
		name, val := h[:colon], bytes.Trim(h[colon+1:], " \t")
		if !httpguts.ValidHeaderFieldName(string(name)) || !httpguts.ValidHeaderFieldValue(string(val)) {
			return r, false
		}
		switch {
		case fold(name, "Host"):
			host++
			if !httpguts.ValidHostHeader(string(val)) {
				return r, false
			}
		case fold(name, "Accept-Encoding"):
			if !r.gzipSeen {
				r.gzipSeen, r.gzip = gzipToken(string(val))
			}
		case fold(name, "If-None-Match"):
			if r.hasINM {
				r.inm += ","
			}
			r.inm += string(val)
			r.hasINM = true
		case fold(name, "X-Request-Id"):
			if !r.hasID {
				r.id, r.hasID = string(val), true
			}
		case fold(name, "Connection"):
			switch {
			case fold(val, "close"):
				r.close = true
			case fold(val, "keep-alive"):
			default:
				return r, false
			}
		case fold(name, "X-Forwarded-Proto"):
			xfp++
			r.https = string(val) == "https"
		case fold(name, "Cookie"):
			r.cookie = true
		case fold(name, "Content-Length"), fold(name, "Transfer-Encoding"),
			fold(name, "Expect"), fold(name, "Upgrade"), fold(name, "Te"), fold(name, "Trailer"),
			fold(name, "Http2-Settings"):
			return r, false
		}
	}
	if host != 1 {
		return r, false // net/http answers 400
	}
	if r.hasID && (len(r.id) == 0 || len(r.id) > 64) {
		r.hasID = false
	}
	if xfp > 0 {
		peer, err := netip.ParseAddrPort(nc.RemoteAddr().String())
		r.https = r.https && xfp == 1 && err == nil && f.proxies.trusts(peer.Addr())
	}
	return r, true
}

var (
	crlf     = []byte("\r\n")
	sp       = []byte(" ")
	question = []byte("?")
)

// plainPath reports whether target is an origin-form path net/http would
// take as it is: printable, no escapes, query, fragment or dot segments.
func plainPath(t []byte) bool {
	if len(t) == 0 || t[0] != '/' {
		return false
	}
	for i, c := range t {
		if c <= ' ' || c >= 0x7f || c == '%' || c == '?' || c == '#' || c == '\\' {
			return false
		}
		if c == '/' && i > 0 && t[i-1] == '/' {
			return false
		}
		if c == '.' && t[i-1] == '/' {
			return false // "/." starts a dot segment or a dot file: net/http's
		}
	}
	return true
}

// plainQuery reports whether q is a query net/http keeps as it is for
// r.URL.RawQuery and reads as the front's routes do: printable, no
// fragment, no semicolon (which url.ParseQuery refuses), escapes allowed.
func plainQuery(q []byte) bool {
	for _, c := range q {
		if c <= ' ' || c >= 0x7f || c == '#' || c == ';' || c == '\\' {
			return false
		}
	}
	return true
}

// fold reports whether b equals the ASCII string s, ignoring case.
func fold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// frontHeader is the status line and headers the chain sends with p at path
// (as https, as a 304), without Date, X-Request-Id and Connection: made
// once per page and variant by running the chain's own header code on a
// recorder, so that the two cannot disagree.
func (p *Page) frontHeader(path string, https, notMod bool) []byte {
	i := 0
	if https {
		i |= 1
	}
	if notMod {
		i |= 2
	}
	if IsAPI(path) {
		i |= 4
	}
	if b := p.front[i].Load(); b != nil {
		return *b
	}
	r := &http.Request{Method: http.MethodGet, URL: &url.URL{Path: path}, Header: http.Header{}}
	r.Header["Accept-Encoding"] = []string{"gzip"}
	if https {
		r.Header["X-Forwarded-Proto"] = []string{"https"}
	}
	if notMod {
		r.Header["If-None-Match"] = []string{p.ETag}
	}
	rec := &headerRecorder{h: http.Header{}}
	setSecurityHeaders(rec.h, r)
	p.headers(rec, r)
	h := rec.h
	b := []byte("HTTP/1.1 " + strconv.Itoa(rec.code) + " " + http.StatusText(rec.code) + "\r\n")
	for _, k := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[k] {
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	p.front[i].Store(&b)
	return b
}

// headerRecorder keeps the headers and status a handler sets.
type headerRecorder struct {
	h    http.Header
	code int
}

func (w *headerRecorder) Header() http.Header         { return w.h }
func (w *headerRecorder) WriteHeader(code int)        { w.code = code }
func (w *headerRecorder) Write(b []byte) (int, error) { return len(b), nil }

// httpDate is the Date header's value, made once a second.
func httpDate() string {
	now := time.Now()
	if d := lastDate.Load(); d != nil && d.sec == now.Unix() {
		return d.s
	}
	d := &dateValue{sec: now.Unix(), s: now.UTC().Format(http.TimeFormat)}
	lastDate.Store(d)
	return d.s
}

type dateValue struct {
	sec int64
	s   string
}

var lastDate atomic.Pointer[dateValue]
