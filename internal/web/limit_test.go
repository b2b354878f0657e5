package web

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestOverLimitBodyStillGets413: a client that writes its whole body before
// reading the answer (Python's urllib, many others) reads the 413, both
// when Content-Length announces too much and when a chunked body runs past
// the limit in the handler, instead of a connection reset: the server reads
// and discards the rest (up to a bound) before closing, as nginx's
// lingering close does.
func TestOverLimitBodyStillGets413(t *testing.T) {
	assets, _ := NewAssets(StaticFS(), "/static/")
	site := &Site{Assets: assets, Log: slog.New(slog.DiscardHandler)}
	h := site.LimitBody(1<<20, nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := ParseForm(r, 1<<20); err != nil {
			site.Error(w, r, err)
			return
		}
		io.WriteString(w, "ok")
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	body := bytes.Repeat([]byte("a=b&"), 8<<20/4) // 8 MiB: far past the socket buffers
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			c, err := net.Dial("tcp", srv.Listener.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			head := "POST /form HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n"
			if chunked {
				head += "Transfer-Encoding: chunked\r\n\r\n"
			} else {
				head += fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))
			}
			w := bufio.NewWriterSize(c, 64<<10)
			w.WriteString(head)
			if chunked {
				for i := 0; i < len(body); i += 32 << 10 {
					part := body[i:min(i+32<<10, len(body))]
					fmt.Fprintf(w, "%x\r\n", len(part))
					w.Write(part)
					w.WriteString("\r\n")
				}
				w.WriteString("0\r\n\r\n")
			} else {
				w.Write(body)
			}
			if err := w.Flush(); err != nil {
				t.Fatalf("writing the whole body before reading: %v; want it read (and discarded) by the server", err)
			}
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("reading the answer: %v; want the 413", err)
			}
			page, _ := io.ReadAll(res.Body)
			if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(page), "<h1>413</h1>") {
				t.Fatalf("answer %d %q; want 413 with the message", res.StatusCode, page)
			}
		})
	}
}

// TestOverLimitWithExpectContinueAnswersAtOnce: a client that asks
// "Expect: 100-continue" and announces too much gets the 413 at once and
// is not waited for (it sends no body after a final answer).
func TestOverLimitWithExpectContinueAnswersAtOnce(t *testing.T) {
	assets, _ := NewAssets(StaticFS(), "/static/")
	site := &Site{Assets: assets, Log: slog.New(slog.DiscardHandler)}
	srv := httptest.NewServer(site.LimitBody(1<<20, nil)(http.NotFoundHandler()))
	defer srv.Close()
	c, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// A minute: a server waiting for the body would wait past it, far from
	// the moment an answer at once takes, whatever the machine's load.
	c.SetDeadline(time.Now().Add(time.Minute))
	fmt.Fprintf(c, "POST /x HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n", 8<<20)
	start := time.Now()
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil || res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("answer %v %v; want 413", res, err)
	}
	io.ReadAll(res.Body)
	// The server closes the connection without waiting for a body.
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("after the 413: %v; want the connection closed", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("closed after %v; want at once (no lingering for a body that never comes)", d)
	}
}
