package web

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// countConn counts the writes that reach the socket.
type countConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

type countListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countConn{c, l.writes}, nil
}

// A page served whole reaches the socket in one write, whatever its size,
// intact; a plain Write of the same body takes net/http two or more.
func TestWriteWholeIsOneWrite(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 2000) // 32 KB, 8 of net/http's buffers
	big := bytes.Repeat([]byte("0123456789abcdef"), 3*maxHeld/16+100)
	edge := body[:4183] // the demo poll page's gzip bytes
	var writes atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big": // past maxHeld: several writes, but bounded and intact
			held := Hold(r)
			defer held.Release()
			w.Write(big)
		case "/edge": // just past net/http's 4 KiB buffer, header included
			w.Header().Set("Content-Length", strconv.Itoa(len(edge)))
			WriteWhole(w, r, edge)
		case "/small": // no holding, with a page's headers
			for _, kv := range pageHeaders {
				w.Header()[kv.key] = kv.val
			}
			w.Header().Set("Content-Length", strconv.Itoa(smallBody))
			WriteWhole(w, r, body[:smallBody])
		case "/plain":
			w.Header().Set("Content-Length", "32000")
			w.Write(body)
		case "/chunked": // as a stream writes a round of events, then flushes
			held := Hold(r)
			for part := range slices.Chunk(body, 3200) {
				w.Write(part)
			}
			http.NewResponseController(w).Flush()
			if err := held.Release(); err != nil {
				t.Error(err)
			}
		default:
			w.Header().Set("Content-Length", "32000")
			WriteWhole(w, r, body)
		}
	}))
	srv.Listener = Listener(countListener{srv.Listener, &writes})
	srv.Config.ConnContext = ConnContext
	srv.Start()
	defer srv.Close()
	get := func(path string) int64 {
		t.Helper()
		want := body
		switch path {
		case "/big":
			want = big
		case "/edge":
			want = edge
		case "/small":
			want = body[:smallBody]
		}
		before := writes.Load()
		res, err := srv.Client().Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: body of %d bytes, %v", path, len(got), err)
		}
		return writes.Load() - before
	}
	for range 3 { // the same connection, kept alive
		if n := get("/whole"); n != 1 {
			t.Errorf("whole: %d writes, want 1", n)
		}
		if n := get("/edge"); n != 1 {
			t.Errorf("edge: %d writes, want 1", n)
		}
		if n := get("/small"); n != 1 {
			t.Errorf("small: %d writes, want 1", n)
		}
		if n := get("/chunked"); n != 2 { // the held round, then the last chunk
			t.Errorf("chunked: %d writes, want 2", n)
		}
		if n := get("/big"); n < 3 || n > 5 {
			t.Errorf("big: %d writes, want 3 to 5 (held up to %d bytes at a time)", n, maxHeld)
		}
		if n := get("/plain"); n < 2 {
			t.Errorf("plain: %d writes; the test no longer shows what it should", n)
		}
	}
}

// A panic in a held span still gets its 500 out (Recover releases what is
// held), and the connection serves the next request.
func TestPanicWhileHoldingStillAnswers(t *testing.T) {
	var logs bytes.Buffer
	assets, _ := NewAssets(StaticFS(), "/static/")
	s := &Site{Assets: assets, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	srv := httptest.NewUnstartedServer(Recover(s)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ok" {
			WriteWhole(w, r, []byte("fine"))
			return
		}
		Hold(r) // and never released: the panic comes first
		panic("boom")
	})))
	srv.Listener = Listener(srv.Listener)
	srv.Config.ConnContext = ConnContext
	srv.Start()
	defer srv.Close()
	c := srv.Client()
	c.Timeout = 5 * time.Second
	res, err := c.Get(srv.URL + "/panic")
	if err != nil {
		t.Fatalf("no answer after a panic in a held span: %v", err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", res.StatusCode)
	}
	res, err = c.Get(srv.URL + "/ok")
	if err != nil {
		t.Fatalf("next request: %v", err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(b) != "fine" {
		t.Errorf("next request: %q", b)
	}
}
