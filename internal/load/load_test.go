package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/tutti-dev/tutti/internal/web"
)

func page(t *testing.T, raw, body string) *Page {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return &Page{URL: u, Status: 200, Body: []byte(body)}
}

func TestFormParsing(t *testing.T) {
	p := page(t, "http://127.0.0.1/meet/polls/x", `<html><body>
		<form action="/search" method="get"><input name="q" value="a"></form>
		<form id="f" action="p/1/timeframes" method="post">
			<input type="hidden" name="tz" value="Europe/Berlin">
			<input name="date" value=""><input type="checkbox" name="ok" checked><input type="checkbox" name="no">
			<select name="tier"><option value="1">1</option><option value="2" selected>2</option></select>
			<select name="empty"><option value="x">x</option></select>
			<textarea name="body">hello</textarea>
			<input type="submit" name="go" value="Go"><input name="off" value="1" disabled>
		</form>
		<a href="/meet/polls/x?after=5">next</a><a href="https://elsewhere/">out</a></body></html>`)
	f, err := p.Form("/timeframes")
	if err != nil {
		t.Fatal(err)
	}
	if f.Action.String() != "http://127.0.0.1/meet/polls/p/1/timeframes" || f.Method != "POST" {
		t.Errorf("action %s %s; want resolved POST", f.Method, f.Action)
	}
	want := url.Values{"tz": {"Europe/Berlin"}, "date": {""}, "ok": {"on"}, "tier": {"2"}, "empty": {"x"}, "body": {"hello"}}
	if f.Values.Encode() != want.Encode() {
		t.Errorf("values %s; want %s", f.Values.Encode(), want.Encode())
	}
	if g, err := p.Form("#f"); err != nil || g.Action.Path != f.Action.Path {
		t.Errorf("by id: %v", err)
	}
	if g, _ := p.Form(""); g.Method != "GET" || g.Values.Get("q") != "a" {
		t.Errorf("first form: %+v", g)
	}
	if _, err := p.Form("/nothing"); err == nil {
		t.Error("missing form found")
	}
	if l, err := p.Link("after="); err != nil || l != "http://127.0.0.1/meet/polls/x?after=5" {
		t.Errorf("link %q %v", l, err)
	}
	// As browsers read it: options whose end tags are left out, a stray
	// end tag, escapes, a custom element, a form's end ending its fields.
	q := page(t, "http://127.0.0.1/race/r/x/entry/1/details", `<!doctype html><main><my-card><p>Details</my-card></p>
		<form action="details" method="post"><select name="size"><option>S<option selected>M &amp; L<option>XL</select>
		<select name="shirt"><option value="">Choose</option><option value="m">M</option></select>
		</span><textarea name="note">a &lt;b&gt; c</textarea><input name="gender" type="radio" value="f" checked>
		<input name="gender" type="radio" value="m"></form><input name="outside" value="1">
		<a id="home" href="/race/">home</a>`)
	f, err = q.Form("details")
	if err != nil {
		t.Fatal(err)
	}
	want = url.Values{"size": {"M & L"}, "shirt": {""}, "note": {"a <b> c"}, "gender": {"f"}}
	if f.Values.Encode() != want.Encode() || f.Action.Path != "/race/r/x/entry/1/details" {
		t.Errorf("values %s, action %s; want %s", f.Values.Encode(), f.Action, want.Encode())
	}
	if q.Attr("home", "href") != "/race/" {
		t.Errorf("attr: %q", q.Attr("home", "href"))
	}
}

func TestCheckTarget(t *testing.T) {
	for raw, ok := range map[string]bool{
		"http://127.0.0.1:8080": true, "http://localhost": true, "http://[::1]:80": true, "http://127.9.9.9": true,
		"http://10.0.0.1": false, "http://example.com": false, "ftp://127.0.0.1": false, "http://192.168.1.1": false,
	} {
		u, _ := url.Parse(raw)
		if err := CheckTarget(u); (err == nil) != ok {
			t.Errorf("%s: err %v; want ok=%v", raw, err, ok)
		}
	}
	u, _ := url.Parse("http://10.1.2.3")
	if _, err := Run(context.Background(), &Scenario{Sessions: []Session{{Weight: 1}}}, Config{Target: u, Phases: []Phase{{Duration: time.Second, Rate: 1}}}); err == nil {
		t.Error("Run accepted a non-loopback target")
	}
}

func server(t *testing.T) (*url.URL, *atomic.Int64) {
	var hits atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("u")})
		http.Redirect(w, r, "/me", http.StatusSeeOther)
	})
	mux.HandleFunc("/me", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		c, err := r.Cookie("who")
		if err != nil {
			http.Error(w, "no cookie", 401)
			return
		}
		w.Write([]byte("<p>" + c.Value + "</p>"))
	})
	mux.HandleFunc("/fail", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	u, _ := url.Parse(ts.URL)
	return u, &hits
}

func TestOpenModelArrivalsAndCookies(t *testing.T) {
	u, hits := server(t)
	var mixed atomic.Int64
	sc := &Scenario{Name: "t", Sessions: []Session{{Name: "login", Weight: 1, Run: func(ctx context.Context, c *Client) error {
		name := "u" + string(rune('a'+c.Intn(26)))
		p, err := c.Get(ctx, "login", "/login?u="+name)
		if err != nil {
			return err
		}
		if !p.Contains("<p>" + name + "</p>") {
			mixed.Add(1) // another session's cookie
		}
		return nil
	}}}}
	res, err := Run(context.Background(), sc, Config{Target: u, Phases: []Phase{{Duration: time.Second, Rate: 20}, {Duration: time.Second, Rate: 40}}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	// 60 arrivals expected; Poisson arrivals over 2 s vary, so be generous.
	if n := res.Totals.Sessions; n < 30 || n > 100 {
		t.Errorf("%d sessions in 2 s at 20 then 40/s; want about 60", n)
	}
	if res.Phases[1].Arrivals <= res.Phases[0].Arrivals {
		t.Errorf("phase arrivals %d then %d; want more in the faster phase", res.Phases[0].Arrivals, res.Phases[1].Arrivals)
	}
	if mixed.Load() != 0 || hits.Load() != res.Totals.Requests || res.Totals.Errors != 0 {
		t.Errorf("mixed cookies %d, hits %d of %d requests, errors %d", mixed.Load(), hits.Load(), res.Totals.Requests, res.Totals.Errors)
	}
	if res.Status["200"] != res.Totals.Requests || len(res.Timeline) < 2 {
		t.Errorf("status %v, %d seconds of timeline", res.Status, len(res.Timeline))
	}
}

func TestClosedModelAndErrorKinds(t *testing.T) {
	u, _ := server(t)
	var alive, most atomic.Int64
	sc := &Scenario{Name: "t", Sessions: []Session{
		{Name: "fail", Weight: 1, Run: func(ctx context.Context, c *Client) error {
			n := alive.Add(1)
			defer alive.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			_, err := c.Get(ctx, "fail", "/fail")
			var se *StatusError
			if !errors.As(err, &se) || se.Status != 500 {
				t.Errorf("got %v; want a 500 StatusError", err)
			}
			return c.Think(ctx, 20*time.Millisecond, 30*time.Millisecond)
		}},
	}}
	res, err := Run(context.Background(), sc, Config{Target: u, Closed: 5, Duration: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors[Kind5xx] == 0 || res.Errors[Kind5xx] != res.Totals.Errors || res.Settings.Model != "closed" {
		t.Errorf("errors %v totals %d model %s; want only 5xx", res.Errors, res.Totals.Errors, res.Settings.Model)
	}
	if ex := res.ErrorExamples; len(ex) != 1 || !strings.Contains(ex[Kind5xx], "50") {
		t.Errorf("error examples %q; want the first 5xx's message", ex)
	}
	if most.Load() != 5 {
		t.Errorf("%d sessions alive at most; want 5", most.Load())
	}
	// A refused port counts as refused.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	dead, _ := url.Parse("http://" + addr)
	sc = &Scenario{Name: "t", Sessions: []Session{{Name: "x", Weight: 1, Run: func(ctx context.Context, c *Client) error {
		_, err := c.Get(ctx, "x", "/")
		return err
	}}}}
	res, err = Run(context.Background(), sc, Config{Target: dead, Phases: []Phase{{Duration: 300 * time.Millisecond, Rate: 20}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors[KindRefused] == 0 || res.Failed["x refused"] != res.Totals.SessionsFailed || res.Totals.SessionsFailed == 0 {
		t.Errorf("errors %v, failed sessions %v; want refused", res.Errors, res.Failed)
	}
	if res.Totals.SuccessRate != 0 {
		t.Errorf("success rate %v with every session refused; want 0", res.Totals.SuccessRate)
	}
}

func TestReportsAndCompare(t *testing.T) {
	u, _ := server(t)
	sc := &Scenario{Name: "t", Sessions: []Session{{Name: "me", Weight: 1, Run: func(ctx context.Context, c *Client) error {
		_, err := c.Get(ctx, "login", "/login?u=x")
		return err
	}}}}
	res, err := Run(context.Background(), sc, Config{Target: u, Phases: []Phase{{Duration: 500 * time.Millisecond, Rate: 40}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	if err := res.WriteJSON(a); err != nil {
		t.Fatal(err)
	}
	res.Totals.RequestsPerSec *= 2
	res.WriteJSON(b)
	var out bytes.Buffer
	if code := Main(context.Background(), []string{"compare", a, b}, &out, &out, nil); code != 0 || !strings.Contains(out.String(), "login") || !strings.Contains(out.String(), "2.00") {
		t.Errorf("compare exit %d:\n%s", code, out.String())
	}
	h := filepath.Join(dir, "r.html")
	if err := res.WriteHTML(h); err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(h)
	if !bytes.Contains(html, []byte("<polyline")) || !bytes.Contains(html, []byte("login")) || bytes.Contains(html, []byte("<script")) {
		t.Errorf("HTML report lacks charts or data, or loads a script")
	}
	peak := fmt.Sprintf("peak %d/s", res.Totals.PeakRequestsPerSec)
	if !bytes.Contains(html, []byte("Sessions completed per second")) || !bytes.Contains(html, []byte("100.00 % succeeded")) || !bytes.Contains(html, []byte(peak)) {
		t.Errorf("HTML report lacks the completions chart, the success rate or the %s", peak)
	}
	out.Reset()
	res.WriteText(&out)
	if !strings.Contains(out.String(), "highest 10s mean") || !strings.Contains(out.String(), "100.00 % succeeded") || !strings.Contains(out.String(), peak) {
		t.Errorf("text report:\n%s", out.String())
	}
}

// TestIdleClientsAreSmall: the race burst keeps tens of thousands of
// sessions alive, mostly thinking; each must cost kilobytes.
func TestIdleClientsAreSmall(t *testing.T) {
	u, _ := server(t)
	state := &runState{rec: newRecorder(time.Now(), 1, func(time.Time) int { return 0 })}
	tr := &http.Transport{}
	const n = 10000
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	clients := make([]*Client, n)
	for i := range clients {
		c := &Client{run: state, base: u, timeout: time.Second, rng: func(int64) int64 { return 0 }}
		c.http = http.Client{Transport: tr, Jar: &jar{}}
		c.http.Jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: strings.Repeat("x", 32)}})
		clients[i] = c
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := (after.HeapAlloc - before.HeapAlloc) / n
	if per > 4096 {
		t.Errorf("%d bytes per idle client; want under 4 KB", per)
	}
	runtime.KeepAlive(clients)
}

// TestBurstCount: a Count phase starts exactly that many sessions within
// its duration, and the report gives the sessions' hourly rate and their
// completions second by second.
func TestBurstCount(t *testing.T) {
	u, _ := server(t)
	sc := &Scenario{Name: "t", Sessions: []Session{{Name: "reg", Weight: 1, Run: func(ctx context.Context, c *Client) error {
		_, err := c.Get(ctx, "login", "/login?u=x")
		return err
	}}}}
	res, err := Run(context.Background(), sc, Config{Target: u, Phases: []Phase{{Duration: 700 * time.Millisecond, Count: 37}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.Sessions != 37 || res.Phases[0].Arrivals != 37 || res.Totals.Errors != 0 {
		t.Fatalf("%d sessions, %d arrivals, %d errors; want exactly 37 and none", res.Totals.Sessions, res.Phases[0].Arrivals, res.Totals.Errors)
	}
	var done int64
	for _, s := range res.Timeline {
		done += s.Sessions["reg"]
	}
	st := res.Sessions[0]
	if done != 37 || st.SpanSeconds <= 0 || st.SpanSeconds > 2 || st.PerHour < 37*3600/2 {
		t.Errorf("timeline completions %d, span %.2f s, %.0f an hour; want 37 within the 0.7 s burst", done, st.SpanSeconds, st.PerHour)
	}
	var peak, completed int64
	for _, s := range res.Timeline {
		peak = max(peak, s.Requests)
		completed += s.Completed()
	}
	if res.Totals.SuccessRate != 1 || res.Totals.PeakRequestsPerSec != peak || peak < 37/2 || completed != 37 {
		t.Errorf("success rate %v, peak %d/s (busiest second %d), %d completed; want 1, the busiest second, 37",
			res.Totals.SuccessRate, res.Totals.PeakRequestsPerSec, peak, completed)
	}
	if g := res.Generator; g == nil || g.Samples == 0 || g.BaseBytes <= 0 || g.PeakBytes < g.BaseBytes ||
		g.BaseLive <= 0 || g.PeakActive > 0 && (g.LiveAtPeak <= 0 || g.LiveAtPeak > g.BytesAtPeak) {
		t.Errorf("generator memory %+v; want live memory, within what is held", g)
	}
}

// TestPeopleHaveTheirOwnConnections: each person opens its own connection
// (from one of several loopback addresses), keeps it while it thinks less
// than the keep-alive and opens another after a longer pause; the shared
// pool reuses connections across people.
func TestPeopleHaveTheirOwnConnections(t *testing.T) {
	var conns atomic.Int64
	var mu sync.Mutex
	sources := map[string]bool{}
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, _ := net.SplitHostPort(r.RemoteAddr)
		mu.Lock()
		sources[host] = true
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	countConns(ts, &conns)
	ts.Start()
	t.Cleanup(ts.Close)
	u, _ := url.Parse(ts.URL)
	three := func(pause time.Duration) *Scenario {
		return &Scenario{Name: "t", Sessions: []Session{{Name: "p", Weight: 1, Run: func(ctx context.Context, c *Client) error {
			for i := range 3 {
				if i == 2 {
					if err := c.Think(ctx, pause, pause); err != nil {
						return err
					}
				}
				if _, err := c.Get(ctx, "get", "/"); err != nil {
					return err
				}
			}
			return nil
		}}}}
	}
	run := func(cfg Config, pause time.Duration) int64 {
		t.Helper()
		conns.Store(0)
		cfg.Target, cfg.Phases = u, []Phase{{Duration: 300 * time.Millisecond, Count: 10}}
		res, err := Run(context.Background(), three(pause), cfg)
		if err != nil || res.Totals.Errors != 0 || res.Totals.Requests != 30 {
			t.Fatalf("run: %v, %d errors, %d requests", err, res.Totals.Errors, res.Totals.Requests)
		}
		return conns.Load()
	}
	if n := run(Config{KeepAlive: time.Second, Sources: 4}, 10*time.Millisecond); n != 10 {
		t.Errorf("%d connections for 10 people who pause briefly; want one each", n)
	}
	if len(sources) < 2 {
		t.Errorf("connections came from %v; want several loopback addresses", sources)
	}
	if n := run(Config{KeepAlive: 50 * time.Millisecond}, 200*time.Millisecond); n != 20 {
		t.Errorf("%d connections for 10 people who pause past the keep-alive; want two each", n)
	}
	// Short of files (at the drain's high mark from the first connection
	// on), a person's next request at once still reuses the connection,
	// and one after a pause past web.BusyIdle does not.
	if n := run(Config{KeepAlive: 5 * time.Second, files: 2}, 10*time.Millisecond); n != 10 {
		t.Errorf("%d connections for 10 people who pause briefly, the generator short of files; want one each", n)
	}
	if n := run(Config{KeepAlive: 5 * time.Second, files: 2}, web.BusyIdle+300*time.Millisecond); n < 19 {
		t.Errorf("%d connections for 10 people who pause past web.BusyIdle, the generator short of files; want two each", n)
	}
	if n := run(Config{Shared: true}, 10*time.Millisecond); n >= 10 {
		t.Errorf("%d connections for 10 people sharing a pool; want fewer than one each", n)
	}
}

// TestPostResentWhenAKeptConnectionCloses: a server (or a proxy reusing
// connections) closes a kept-alive connection just as a person's next
// request, a POST, arrives on it, before answering. A browser sends the
// request again on a new connection; so does the generator.
func TestPostResentWhenAKeptConnectionCloses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var posts atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				req, err := http.ReadRequest(r) // the first request of each connection is answered
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				if req.Method == http.MethodPost {
					posts.Add(1)
				}
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				r.Peek(1) // the next one meets a closing connection
			}()
		}
	}()
	u, _ := url.Parse("http://" + ln.Addr().String())
	sc := &Scenario{Name: "t", Sessions: []Session{{Name: "p", Weight: 1, Run: func(ctx context.Context, c *Client) error {
		if _, err := c.Get(ctx, "get", "/"); err != nil {
			return err
		}
		_, err := c.PostForm(ctx, "post", "/", url.Values{"a": {"1"}})
		return err
	}}}}
	res, err := Run(context.Background(), sc, Config{Target: u, Phases: []Phase{{Duration: 100 * time.Millisecond, Count: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.SessionsFailed != 0 || res.Totals.Errors != 0 || posts.Load() != 3 {
		t.Errorf("%d failed sessions (%v), %d posts arrived; want none failed, 3 posts", res.Totals.SessionsFailed, res.Errors, posts.Load())
	}
}

// TestPersonsTransportOverTLS: a person's own transport speaks HTTP/1.1
// over TLS, follows redirects and reads chunked and gzip answers whole on
// one kept connection, and opens a new one after an answer that closes its
// connection.
func TestPersonsTransportOverTLS(t *testing.T) {
	big := strings.Repeat("0123456789", 20_000)
	var conns atomic.Int64
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			http.Redirect(w, r, "/chunked", http.StatusSeeOther)
		case "/chunked": // no length: sent in chunks
			for i := 0; i < len(big); i += 10_000 {
				io.WriteString(w, big[i:i+10_000])
				w.(http.Flusher).Flush()
			}
		case "/close":
			w.Header().Set("Connection", "close")
			io.WriteString(w, "bye")
		case "/post":
			b, _ := io.ReadAll(r.Body)
			io.WriteString(w, r.Method+" "+string(b)+" "+r.Header.Get("Cookie"))
		}
	}))
	countConns(ts, &conns)
	ts.StartTLS()
	t.Cleanup(ts.Close)
	u, _ := url.Parse(ts.URL)
	var bodies sync.Map
	sc := &Scenario{Name: "t", Sessions: []Session{{Name: "p", Weight: 1, Run: func(ctx context.Context, c *Client) error {
		c.SetCookies([]*http.Cookie{{Name: "s", Value: "v"}})
		p, err := c.Get(ctx, "redirected", "/")
		if err != nil {
			return err
		}
		if p.URL.Path != "/chunked" || string(p.Body) != big {
			return fmt.Errorf("%s: %d bytes, want /chunked with %d", p.URL.Path, len(p.Body), len(big))
		}
		if p, err = c.Get(ctx, "close", "/close"); err != nil || string(p.Body) != "bye" {
			return fmt.Errorf("close: %v %q", err, p.Body)
		}
		if p, err = c.PostForm(ctx, "post", "/post", url.Values{"a": {"1"}}); err != nil {
			return err
		}
		bodies.Store(string(p.Body), true)
		return nil
	}}}}
	res, err := Run(context.Background(), sc, Config{Target: u, TLS: ts.Client().Transport.(*http.Transport).TLSClientConfig,
		Phases: []Phase{{Duration: 100 * time.Millisecond, Count: 4}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Totals.SessionsFailed != 0 || res.Totals.Errors != 0 || res.Totals.Requests != 12 {
		t.Fatalf("%d failed sessions (%v), %d errors, %d requests; want 0, 0, 12", res.Totals.SessionsFailed, res.Errors, res.Totals.Errors, res.Totals.Requests)
	}
	if _, ok := bodies.Load("POST a=1 s=v"); !ok {
		bodies.Range(func(k, _ any) bool { t.Errorf("post answered %q; want %q", k, "POST a=1 s=v"); return true })
	}
	// Each person: one connection for the redirect, the chunked page and
	// /close; a second after /close closed it.
	if n := conns.Load(); n != 8 {
		t.Errorf("%d connections for 4 people; want 2 each", n)
	}
}

// countConns counts the connections ts accepts into n.
func countConns(ts *httptest.Server, n *atomic.Int64) {
	ts.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
}

// TestPagesReadOnceForEveryone: a cacheable page (one with an ETag) that
// many people get byte for byte is gunzipped and read once; a page with
// other bytes, or without an ETag, is each person's own, and every person
// reads the same forms and assets either way.
func TestPagesReadOnceForEveryone(t *testing.T) {
	page := func(etag, body string, gz bool) *http.Response {
		h := http.Header{}
		b := []byte(body)
		if gz {
			var buf bytes.Buffer
			zw := gzip.NewWriter(&buf)
			zw.Write(b)
			zw.Close()
			b = buf.Bytes()
			h.Set("Content-Encoding", "gzip")
		}
		if etag != "" {
			h.Set("Etag", etag)
		}
		return &http.Response{StatusCode: 200, Header: h, Body: io.NopCloser(bytes.NewReader(b))}
	}
	const html = `<link rel="stylesheet" href="/s/a.css"><form action="/go" method="post"><input name="x" value="1"></form>`
	c := &pageCache{seed: maphash.MakeSeed()}
	read := func(res *http.Response) (*Page, *sharedPage) {
		t.Helper()
		body, sp, err := c.read(res)
		if err != nil || string(body) != html && string(body) != html+" " {
			t.Fatalf("read: %q, %v", body, err)
		}
		u, _ := url.Parse("http://127.0.0.1/race")
		return &Page{URL: u, Status: 200, Body: body, shared: sp}, sp
	}
	p1, a := read(page(`"v1"`, html, true))
	p2, b := read(page(`"v1"`, html, true))
	_, other := read(page(`"v1"`, html+" ", true))
	_, plain := read(page(`"v1"`, html, false))
	_, none := read(page("", html, true))
	if a == nil || a != b {
		t.Errorf("the same bytes with an ETag were read twice: %p, %p", a, b)
	}
	if other == a || plain == a || none != nil {
		t.Errorf("shared across different bytes or encodings, or without an ETag: %p %p %p (first %p)", other, plain, none, a)
	}
	for _, p := range []*Page{p1, p2} {
		f, err := p.Form("/go")
		if err != nil || f.Values.Get("x") != "1" || !slices.Equal(p.assets(), []string{"http://127.0.0.1/s/a.css"}) {
			t.Errorf("a shared page's form %v (%v), assets %v", f, err, p.assets())
		}
	}
	f, _ := p1.Form("/go")
	f.Set("x", "2") // a person's form is their own
	if g, _ := p2.Form("/go"); g.Values.Get("x") != "1" {
		t.Errorf("one person's form changed another's: %v", g.Values)
	}
}
