package web

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/tutti-dev/tutti/internal/testenv"
)

// frontPair is one site served twice: by net/http alone (plain) and through
// the Front (front), so that every request can be sent to both and the
// answers compared.
type frontPair struct {
	plain, front string
	handed       atomic.Int64 // connections the front handed to net/http
	handedAddrs  sync.Map     // their client addresses
	chained      atomic.Int64 // requests that reached the chain's handlers
	metrics      *Metrics
	pg           *Page
	css          string // a static file's URL
	logs         *bytes.Buffer
}

func newFrontPair(t testing.TB) *frontPair {
	p := &frontPair{logs: &bytes.Buffer{}}
	s := &Site{Log: slog.New(slog.NewTextHandler(&lockedWriter{w: p.logs}, nil))}
	p.pg = NewPage("text/html; charset=utf-8", []byte("<p>"+strings.Repeat("hello, world ", 800)+"</p>"), "")
	small := NewPage("application/json", []byte(`{"a":1}`), "") // kept as identity: gzip is not smaller
	s.Hot("GET /x/api/list", func(_ context.Context, _ HotRequest) (*Page, bool) { return small, true })
	s.Hot("GET /x/items/{id}", func(_ context.Context, req HotRequest) (*Page, bool) {
		arg := req.Args[0]
		if arg == "boom" {
			panic("boom")
		}
		return p.pg, arg == "abc" || arg == "ab.c"
	})
	s.Hot("GET /x/{$}", func(_ context.Context, _ HotRequest) (*Page, bool) { return p.pg, true })
	s.HotQuery("GET /x/r/{a}/p/{b}", func(_ context.Context, req HotRequest) (*Page, bool) {
		return p.pg, req.Args[0] == "a" && req.Args[1] == "b" && req.Values().Get("page") == "2"
	})
	s.HotAll("GET /x/all/{id}", func(_ context.Context, req HotRequest) (*Page, bool) { return p.pg, req.Args[0] == "abc" })
	assets, err := NewAssets(fstest.MapFS{"a.css": {Data: []byte(strings.Repeat("p { color: red }\n", 50))}}, "/x/static/")
	if err != nil {
		t.Fatal(err)
	}
	p.css = assets.URL("a.css")
	s.Static(assets)
	mux := http.NewServeMux()
	mux.Handle("GET /x/static/", assets)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		p.chained.Add(1)
		io.Copy(io.Discard, r.Body)
		if r.URL.Path == "/x/api/list" {
			small.Serve(w, r)
			return
		}
		p.pg.Serve(w, r)
	})
	proxies, _ := ParseProxies("127.0.0.2")
	p.metrics = NewMetrics(prometheus.NewRegistry())
	h := proxies.Middleware(s.HotLane(Chain(mux, WithRequestID, Observe(s.Log, p.metrics), Recover(s), SecurityHeaders), p.metrics))
	serve := func(ln net.Listener, counted bool) string {
		srv := &http.Server{Handler: h, ConnContext: ConnContext, ReadHeaderTimeout: 2 * time.Second}
		if counted {
			srv.ConnState = func(c net.Conn, st http.ConnState) {
				if st == http.StateNew {
					p.handed.Add(1)
					p.handedAddrs.Store(c.RemoteAddr().String(), true)
				}
			}
		}
		go srv.Serve(ln)
		t.Cleanup(func() { srv.Close() })
		return ln.Addr().String()
	}
	ln1, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.plain = serve(Listener(ln1), false)
	ln2, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.front = serve(s.Listener(ln2, FrontOptions{ReadHeaderTimeout: 2 * time.Second, IdleTimeout: 5 * time.Second,
		WriteTimeout: 5 * time.Second, Proxies: proxies}), true)
	return p
}

type lockedWriter struct {
	mu atomicMutex
	w  io.Writer
}

type atomicMutex struct{ c chan struct{} }

func (w *lockedWriter) Write(b []byte) (int, error) {
	if w.mu.c == nil {
		w.mu.c = make(chan struct{}, 1)
	}
	w.mu.c <- struct{}{}
	defer func() { <-w.mu.c }()
	return w.w.Write(b)
}

// exchange sends raw to addr, in pieces of chunk bytes (0: at once; -1: at
// once, then the client half-closes the connection), and
// returns every answer read until the server closes or goes quiet, each as
// a normal form: the status line, the sorted headers but Date, the body.
func exchange(t testing.TB, addr, raw string, chunk int) []string {
	t.Helper()
	out, _ := exchangeFrom(t, addr, raw, chunk)
	return out
}

// sources numbers the client addresses exchangeFrom dials from.
var sources atomic.Uint32

// dialUnique dials addr from a loopback address no earlier dial of this
// process used (127.1.x.y), so that a client address names one connection:
// with tcp_tw_reuse a client port is used again within milliseconds, and a
// record kept under an earlier connection's address would be read as this
// one's. Where only 127.0.0.1 can be bound it dials as usual.
func dialUnique(addr string) (net.Conn, error) {
	n := sources.Add(1)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 1, byte(n>>8), byte(n))}}
	if c, err := d.Dial("tcp", addr); err == nil {
		return c, nil
	}
	return net.Dial("tcp", addr)
}

// exchangeFrom is exchange that also returns the client's address.
func exchangeFrom(t testing.TB, addr, raw string, chunk int) ([]string, string) {
	t.Helper()
	c, err := dialUnique(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	size := chunk
	if size <= 0 {
		size = len(raw)
	}
	for i := 0; i < len(raw); i += size {
		c.Write([]byte(raw[i:min(i+size, len(raw))]))
		if size < len(raw) {
			time.Sleep(time.Millisecond)
		}
	}
	if chunk < 0 { // half-close: the server sees the end of what is sent
		c.(*net.TCPConn).CloseWrite()
	}
	// HEAD answers have no body: read them as such, in order.
	var methods []string
	for _, line := range strings.Split(raw, "\r\n") {
		if m, _, ok := strings.Cut(line, " "); ok && (m == "GET" || m == "HEAD" || m == "POST") && strings.Contains(line, " HTTP/1.") {
			methods = append(methods, m)
		}
	}
	br := bufio.NewReader(c)
	var out []string
	for i := 0; ; i++ {
		wait := 100 * time.Millisecond // for answers no request asked for
		if i < len(methods) || chunk < 0 {
			wait = 5 * time.Second
		}
		c.SetReadDeadline(time.Now().Add(wait))
		m := "GET"
		if i < len(methods) {
			m = methods[i]
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: m})
		if err != nil {
			break
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s close=%v\n", resp.Proto, resp.Status, resp.Close)
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range resp.Header {
				if k != "Date" && !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(resp.Header[k], " | "))
		}
		fmt.Fprintf(&b, "\n%d bytes %x", len(body), body[:min(len(body), 32)])
		out = append(out, b.String())
		if resp.Close {
			break
		}
	}
	return out, c.LocalAddr().String()
}

// cssETag is the static file's ETag, as the chain sends it.
func (p *frontPair) cssETag(t testing.TB) string {
	t.Helper()
	for _, line := range strings.Split(exchange(t, p.plain, req(p.css), 0)[0], "\n") {
		if v, ok := strings.CutPrefix(line, "Etag: "); ok {
			return v
		}
	}
	t.Fatal("no ETag on a static file")
	return ""
}

func req(target string, hdr ...string) string {
	return "GET " + target + " HTTP/1.1\r\nHost: example.com\r\n" + strings.Join(hdr, "") + "\r\n"
}

// The front answers exactly what net/http and the chain answer, header for
// header and byte for byte, for hits it serves and for everything it hands
// over; and it serves hits without net/http.
func TestFront(t *testing.T) {
	p := newFrontPair(t)
	gz := "Accept-Encoding: gzip, deflate\r\n"
	cases := []struct {
		name, raw string
		front     bool // the front answers every request (net/http never sees the connection)
	}{
		{"hit", req("/x/", gz), true},
		{"hit with a request id", req("/x/items/abc", gz, "X-Request-Id: abc-123\r\n"), true},
		{"request id too long", req("/x/items/abc", gz, "X-Request-Id: "+strings.Repeat("a", 65)+"\r\n"), true},
		{"lower-case names", "GET /x/ HTTP/1.1\r\nhost: a\r\naccept-encoding: gzip\r\n\r\n", true},
		{"identity page", req("/x/api/list", gz), true},
		{"identity page, no gzip", req("/x/api/list"), true},
		{"head", "HEAD /x/ HTTP/1.1\r\nHost: a\r\n" + gz + "\r\n", true},
		{"304", req("/x/", gz, "If-None-Match: "+p.pg.ETag+"\r\n"), true},
		{"304 weak in a list", req("/x/", gz, "If-None-Match: \"zz\", W/"+p.pg.ETag+"\r\n"), true},
		{"two If-None-Match", req("/x/", gz, "If-None-Match: \"zz\"\r\n", "If-None-Match: "+p.pg.ETag+"\r\n"), true},
		{"etag differs", req("/x/", gz, "If-None-Match: \"zz\"\r\n"), true},
		{"connection close", req("/x/", gz, "Connection: close\r\n"), true},
		{"pipelined hits", req("/x/", gz) + req("/x/items/abc", gz) + req("/x/api/list", gz), true},
		{"https from an untrusted peer", req("/x/", gz, "X-Forwarded-Proto: https\r\n"), true},
		{"gzip refused", req("/x/", "Accept-Encoding: gzip;q=0, br\r\n"), false},
		{"no accept-encoding", req("/x/items/abc"), false},
		{"gzip refused, then allowed", req("/x/", "Accept-Encoding: gzip;q=0\r\n", "Accept-Encoding: gzip\r\n"), false},
		{"gzip allowed, then refused", req("/x/", "Accept-Encoding: br, gzip\r\n", "Accept-Encoding: gzip;q=0\r\n"), true},
		{"pipelined hit then miss then hit", req("/x/", gz) + req("/x/items/nope", gz) + req("/x/", gz), false},
		{"query", req("/x/?a=1", gz), false},
		{"query on a query route", req("/x/r/a/p/b?page=2", gz), true},
		{"escaped query", req("/x/r/a/p/b?q=%C3%A9+x&page=%32", gz), true},
		{"empty query", req("/x/?", gz), true},
		{"query route, a miss", req("/x/r/a/p/c?page=2", gz), false},
		{"query route, no query", req("/x/r/a/p/b", gz), false},
		{"query with a semicolon", req("/x/r/a/p/b?page=2;a=1", gz), false},
		{"query with a fragment", req("/x/r/a/p/b?page=2#top", gz), false},
		{"query with a second question mark", req("/x/r/a/p/b?page=2?", gz), false},
		{"cookie", req("/x/", gz, "Cookie: a=b\r\n"), false},
		{"cookie on a page everyone gets alike", req("/x/all/abc", gz, "Cookie: a=b\r\n"), true},
		{"cookie on a page everyone gets alike, a miss", req("/x/all/nope", gz, "Cookie: a=b\r\n"), false},
		{"cookie, everyone's page then a visitors' page", req("/x/all/abc", gz, "Cookie: a=b\r\n") + req("/x/", gz, "Cookie: a=b\r\n"), false},
		{"static file with a cookie", req(p.css, gz, "Cookie: a=b\r\n"), true},
		{"static file revalidated", req(p.css, gz, "If-None-Match: "+p.cssETag(t)+"\r\n"), true},
		{"static file, no gzip", req(p.css, "Cookie: a=b\r\n"), false},
		{"static file unknown", req("/x/static/a.0000000000.css", gz), false},
		{"escaped path", req("/x/items/ab%63", gz), false},
		{"dot segment", req("/x/items/../", gz), false},
		{"dot in a segment", req("/x/items/ab.c", gz), true},
		{"double slash", req("/x//", gz), false},
		{"absolute form", "GET http://a/x/ HTTP/1.1\r\nHost: a\r\n" + gz + "\r\n", false},
		{"HTTP/1.0", "GET /x/ HTTP/1.0\r\nHost: a\r\n" + gz + "\r\n", false},
		{"no host", "GET /x/ HTTP/1.1\r\n" + gz + "\r\n", false},
		{"two hosts", "GET /x/ HTTP/1.1\r\nHost: a\r\nHost: b\r\n" + gz + "\r\n", false},
		{"bad host", "GET /x/ HTTP/1.1\r\nHost: a b\r\n" + gz + "\r\n", false},
		{"folded header", "GET /x/ HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n" + gz + "\r\n", false},
		{"space before colon", "GET /x/ HTTP/1.1\r\nHost: a\r\nX-A : b\r\n" + gz + "\r\n", false},
		{"body on a GET", "GET /x/ HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n" + gz + "\r\nhello" + req("/x/", gz), false},
		{"chunked GET", "GET /x/ HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n" + gz + "\r\n5\r\nhello\r\n0\r\n\r\n", false},
		{"smuggling pair", "GET /x/ HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false},
		{"post", "POST /x/ HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi", false},
		{"upgrade", req("/x/", gz, "Connection: Upgrade\r\n", "Upgrade: h2c\r\n"), false},
		{"lookup panics", req("/x/items/boom", gz), false},
		{"big header block", req("/x/", gz, "X-Big: "+strings.Repeat("b", 5000)+"\r\n"), false},
		{"bare LF", "GET /x/ HTTP/1.1\nHost: a\n\n", false},
		{"garbage", "\x00\x01hello\r\n\r\n", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, chunk := range []int{0, 7} {
				want := exchange(t, p.plain, c.raw, chunk)
				got, from := exchangeFrom(t, p.front, c.raw, chunk)
				if len(want) == 0 && len(got) == 0 {
					continue // both closed without an answer
				}
				if !slices.Equal(got, want) {
					t.Errorf("chunk %d:\nfront:\n%s\n\nnet/http:\n%s", chunk, strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
				}
				if _, handed := p.handedAddrs.Load(from); handed == c.front {
					t.Errorf("chunk %d: answered by the front: %v, want %v", chunk, !handed, c.front)
				}
			}
		})
	}
}

// A trusted proxy's https makes HSTS, as in the chain.
func TestFrontBehindTrustedProxy(t *testing.T) {
	p := newFrontPair(t)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	for _, addr := range []string{p.front, p.plain} {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			testenv.Missing(t, "127.0.0.2", "cannot dial from 127.0.0.2 (a loopback address Linux has): "+err.Error())
		}
		c.Write([]byte(req("/x/", "Accept-Encoding: gzip\r\n", "X-Forwarded-For: 10.1.2.3\r\n", "X-Forwarded-Proto: https\r\n")))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.Header.Get("Strict-Transport-Security") == "" {
			t.Errorf("%s: no HSTS behind a trusted proxy's https: %v", addr, resp.Header)
		}
	}
	if p.handed.Load() != 0 {
		t.Errorf("the front handed a trusted proxy's request over")
	}
}

// The front's answers count in the route's metrics and write the access
// log's line, as the chain's do; Close ends its idle connections.
func TestFrontMetricsLogAndClose(t *testing.T) {
	p := newFrontPair(t)
	exchange(t, p.front, req("/x/items/abc", "Accept-Encoding: gzip\r\n", "X-Request-Id: front-1\r\n")+
		req("/x/items/abc", "Accept-Encoding: gzip\r\n", "If-None-Match: "+p.pg.ETag+"\r\n"), 0)
	if n := count(p.metrics.requests.WithLabelValues("GET /x/items/{id}", "200")); n != 1 {
		t.Errorf("200s counted %v, want 1", n)
	}
	if n := count(p.metrics.requests.WithLabelValues("GET /x/items/{id}", "304")); n != 1 {
		t.Errorf("304s counted %v, want 1", n)
	}
	if !strings.Contains(p.logs.String(), "id=front-1 method=GET path=/x/items/abc status=200 bytes="+fmt.Sprint(len(p.pg.Gzip))) {
		t.Errorf("no access log line:\n%s", p.logs.String())
	}
	if p.handed.Load() != 0 || p.chained.Load() != 0 {
		t.Errorf("handed %d, chained %d: want the front alone", p.handed.Load(), p.chained.Load())
	}
}

// Close ends the front's idle connections at once and refuses new ones.
func TestFrontClose(t *testing.T) {
	s := &Site{Log: slog.New(slog.DiscardHandler)}
	pg := NewPage("text/plain", []byte("hi"), "")
	s.Hot("GET /{$}", func(context.Context, HotRequest) (*Page, bool) { return pg, true })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := s.Listener(ln, FrontOptions{IdleTimeout: time.Minute, ReadHeaderTimeout: time.Minute})
	srv := &http.Server{Handler: http.NotFoundHandler(), ConnContext: ConnContext}
	done := make(chan error)
	go func() { done <- srv.Serve(f) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte(req("/")))
	br := bufio.NewReader(c)
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%v %v", resp, err)
	}
	io.Copy(io.Discard, io.LimitReader(br, 2))
	start := time.Now()
	if err := srv.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != http.ErrServerClosed {
		t.Errorf("Serve: %v", err)
	}
	// A minute: a connection left to its idle timeout (a minute too)
	// would end far from at once, whatever the machine's load.
	c.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("idle connection after Close: %v, want EOF", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("Close took %v to end an idle connection", d)
	}
	if _, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		t.Errorf("a connection was accepted after Close")
	}
}

// Any bytes: the front answers what net/http with the chain answers.
func FuzzFront(f *testing.F) {
	p := newFrontPair(f)
	for _, s := range []string{
		req("/x/", "Accept-Encoding: gzip\r\n"), req("/x/items/abc"), req("/x/?q"),
		"HEAD /x/ HTTP/1.1\r\nHost: a\r\nAccept-Encoding: gzip\r\nIf-None-Match: *\r\n\r\n",
		"GET /x/ HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\nX-Request-Id: 1\r\n\r\n" + req("/x/api/list"),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) > 8<<10 {
			return
		}
		want := exchange(t, p.plain, raw, -1)
		got := exchange(t, p.front, raw, -1)
		if len(want) == 0 && len(got) == 0 {
			return
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q\nfront:\n%s\n\nnet/http:\n%s", raw, strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
		}
	})
}
