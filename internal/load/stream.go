package load

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// Event is one Server-Sent Event. Data is only valid during the callback.
type Event struct {
	ID   string // the id: field, or the last one seen (as EventSource keeps it)
	Type string // the event: field; "message" if none
	Data []byte // the data: lines, joined by newlines
}

// ErrStreamEnded is a stream that the server closed before the session let go.
var ErrStreamEnded = errors.New("load: the server ended the stream")

// Stream opens a text/event-stream GET of path and calls fn for each event
// until ctx ends, the run's load time is over, or fn returns an error (which
// Stream returns). Ending with the run is not an error; the server closing
// the stream is (ErrStreamEnded). headers may add request headers (e.g.
// Last-Event-ID); nil for none.
//
// The request is recorded as name, from when it was due to the response
// headers; a stream that fails later (the server closes it, or fn returns an
// error) is recorded once more, as an error. A stream does not
// go through the shared transport: it is one connection read through small
// buffers by the session's own goroutine, so that ten thousand open streams
// cost kilobytes each.
func (c *Client) Stream(ctx context.Context, name, path string, headers http.Header, fn func(*Event) error) error {
	if c.Over() {
		return nil
	}
	due := c.due
	if now := time.Now(); due.IsZero() || due.After(now) {
		due = now
	}
	if !c.end.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, c.end)
		defer cancel()
	}
	u, err := c.base.Parse(path)
	if err != nil {
		return err
	}
	fail := func(status int, err error) error {
		kind := errKind(ctx, err)
		if ctx.Err() != nil {
			kind, err = "", nil // the run ended
		}
		c.run.record(name, due, time.Now(), status, kind, err)
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Cache-Control", "no-cache")
	for k, vs := range headers {
		req.Header[k] = vs
	}
	var cookies []string
	for _, ck := range c.http.Jar.Cookies(u) {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	if len(cookies) > 0 {
		req.Header.Set("Cookie", strings.Join(cookies, "; "))
	}

	d := net.Dialer{Timeout: min(c.timeout, 5*time.Second), KeepAlive: 30 * time.Second}
	conn, err := d.DialContext(ctx, "tcp", hostPort(u.Scheme, u.Host))
	if err != nil {
		return fail(0, err)
	}
	defer conn.Close()
	if u.Scheme == "https" {
		tc := tls.Client(conn, &tls.Config{ServerName: u.Hostname()})
		conn = tc
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() }) // unblocks the reads
	defer stop()
	conn.SetDeadline(time.Now().Add(c.timeout))
	if err := req.Write(conn); err != nil {
		return fail(0, err)
	}
	br := bufio.NewReaderSize(conn, 1024)
	res, err := http.ReadResponse(br, req)
	if err != nil {
		return fail(0, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fail(res.StatusCode, &StatusError{Status: res.StatusCode, URL: u.Path})
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		return fail(res.StatusCode, fmt.Errorf("load: %s is %q, not an event stream", u.Path, ct))
	}
	c.run.record(name, due, time.Now(), res.StatusCode, "", nil)
	conn.SetDeadline(time.Time{})
	err = readEvents(res.Body, fn)
	c.due = time.Now()
	if ctx.Err() != nil {
		return nil // the run (or the session) ended it
	}
	// A stream that fails after it opened counts once more, as an error.
	kind := KindOther
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		err = ErrStreamEnded
	} else if k := errKind(ctx, err); k != "" {
		kind = k
	}
	c.run.record(name, c.due, c.due, 0, kind, err)
	return err
}

func hostPort(scheme, host string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	if scheme == "https" {
		return host + ":443"
	}
	return host + ":80"
}

// readEvents parses an event stream (the WHATWG rules: field lines, a blank
// line dispatches, ':' starts a comment) and calls fn per event.
func readEvents(r io.Reader, fn func(*Event) error) error {
	br := bufio.NewReaderSize(r, 2048)
	var e Event
	var line, data []byte
	hasData := false
	for {
		line = line[:0]
		for {
			part, err := br.ReadSlice('\n')
			line = append(line, part...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return err
			}
			break
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'})
		if len(line) == 0 {
			if hasData {
				if e.Type == "" {
					e.Type = "message"
				}
				e.Data = data
				if err := fn(&e); err != nil {
					return err
				}
			}
			data, hasData, e.Type = data[:0], false, ""
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte{':'})
		value = bytes.TrimPrefix(value, []byte{' '})
		switch string(field) {
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		case "event":
			e.Type = string(value)
		case "id":
			e.ID = string(value)
		}
	}
}
