package load

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Client is one simulated person: its own cookies, a shared transport, and
// the time its next request is due. It costs a few hundred bytes.
type Client struct {
	run     *runState
	http    http.Client
	base    *url.URL
	due     time.Time // when the next request is due (intended start)
	timeout time.Duration
	rng     func(n int64) int64
	end     time.Time       // when the run's load time is over
	fetched map[string]bool // static assets this person's browser has (Assets)
}

// Page is a response read in full.
type Page struct {
	URL    *url.URL
	Status int
	Header http.Header
	Body   []byte
	els    []element   // read by elements, once
	shared *sharedPage // the run's copy of a cacheable page: its elements are read once for everyone
}

// StatusError is a response with a status of 400 or more.
type StatusError struct {
	Status int
	URL    string
}

func (e *StatusError) Error() string { return fmt.Sprintf("%d from %s", e.Status, e.URL) }

// Get requests path (relative to the target) and records it as name.
func (c *Client) Get(ctx context.Context, name, path string) (*Page, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.resolve(path), nil)
	if err != nil {
		return nil, err
	}
	return c.Do(ctx, name, req)
}

// PostForm posts url-encoded values.
func (c *Client) PostForm(ctx context.Context, name, path string, v url.Values) (*Page, error) {
	req, err := c.formPost(ctx, path, v)
	if err != nil {
		return nil, err
	}
	return c.Do(ctx, name, req)
}

func (c *Client) formPost(ctx context.Context, path string, v url.Values) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.resolve(path), strings.NewReader(v.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resendable(req)
	return req, nil
}

// PostJSON posts body as JSON.
func (c *Client) PostJSON(ctx context.Context, name, path string, body any) (*Page, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.resolve(path), bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resendable(req)
	return c.Do(ctx, name, req)
}

// resendable lets the transport send req again on a new connection when the
// kept-alive one it reused closes before any answer (the server's idle
// timeout or a proxy reusing connections met the request on the way), as a
// browser does for every method. The header's empty value marks it for
// net/http without sending it.
func resendable(req *http.Request) { req.Header["X-Idempotency-Key"] = nil }

// Submit sends a form read from a page.
// It names the page the form was on (Referer), as a browser does.
func (c *Client) Submit(ctx context.Context, name string, f *Form) (*Page, error) {
	var req *http.Request
	var err error
	if strings.EqualFold(f.Method, http.MethodGet) {
		u := *f.Action
		u.RawQuery = f.Values.Encode()
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, c.resolve(u.String()), nil)
	} else {
		req, err = c.formPost(ctx, f.Action.String(), f.Values)
	}
	if err != nil {
		return nil, err
	}
	if f.page != "" {
		req.Header.Set("Referer", f.page)
	}
	return c.Do(ctx, name, req)
}

// Do sends req (following redirects, with the session's cookies), reads the
// body and records the latency from when the request was due.
func (c *Client) Do(ctx context.Context, name string, req *http.Request) (*Page, error) {
	return c.do(ctx, name, req, true)
}

// do is Do; without keep the body is read to its end and dropped, not
// gunzipped (a style sheet's bytes: the server's work is the same, and
// the generator's core is the scarcer).
func (c *Client) do(ctx context.Context, name string, req *http.Request, keep bool) (*Page, error) {
	due := c.due
	now := time.Now()
	if due.IsZero() || due.After(now) {
		due = now
	}
	req.Header.Set("Accept-Encoding", "gzip")
	rctx, cancel := context.WithTimeout(req.Context(), c.timeout)
	defer cancel()
	res, err := c.http.Do(req.WithContext(rctx))
	var page *Page
	if err == nil {
		var body []byte
		var shared *sharedPage
		if keep {
			// Gunzipped: the generator asks for gzip as browsers do, and
			// the session reads forms and links out of the page.
			body, shared, err = c.run.pages.read(res)
		} else {
			_, err = io.Copy(io.Discard, io.LimitReader(res.Body, 32<<20))
			res.Body.Close()
		}
		page = &Page{URL: res.Request.URL, Status: res.StatusCode, Header: res.Header, Body: body, shared: shared}
		if err == nil && res.StatusCode >= 400 {
			err = &StatusError{Status: res.StatusCode, URL: res.Request.URL.Path}
		}
	}
	end := time.Now()
	c.due = end
	status := 0
	if page != nil {
		status = page.Status
	}
	c.run.record(name, due, end, status, errKind(ctx, err), err)
	return page, err
}

// Refresh reports the page's Refresh header (seconds, and the URL to load
// then; the page itself if it names none), as a browser reads it.
func (p *Page) Refresh() (time.Duration, string, bool) {
	v := p.Header.Get("Refresh")
	if v == "" {
		return 0, "", false
	}
	secs, rest, _ := strings.Cut(v, ";")
	n, err := strconv.Atoi(strings.TrimSpace(secs))
	if err != nil || n < 0 {
		return 0, "", false
	}
	to := p.URL.String()
	if u, ok := strings.CutPrefix(strings.TrimSpace(rest), "url="); ok {
		if r, err := p.URL.Parse(strings.TrimSpace(u)); err == nil {
			to = r.String()
		}
	}
	return time.Duration(n) * time.Second, to, true
}

// Assets fetches the page's style sheets and scripts that this person has
// not fetched yet, as a browser with a cache does; each is recorded as
// name.
func (c *Client) Assets(ctx context.Context, name string, p *Page) error {
	for _, u := range p.assets() {
		if c.fetched[u] {
			continue
		}
		if c.fetched == nil {
			c.fetched = map[string]bool{}
		}
		c.fetched[u] = true
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.resolve(u), nil)
		if err != nil {
			return err
		}
		if _, err := c.do(ctx, name, req, false); err != nil {
			return err
		}
	}
	return nil
}

// Think pauses for a random time between min and max; the pause is not
// latency.
func (c *Client) Think(ctx context.Context, min, max time.Duration) error {
	d := min
	if max > min {
		d += time.Duration(c.rng(int64(max - min)))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		c.due = time.Now()
		return nil
	}
}

// SleepUntil pauses until t, which becomes the time the next request is due:
// a session that keeps a fixed pace measures its requests from their
// schedule, so a late answer is not hidden by the next one starting late.
func (c *Client) SleepUntil(ctx context.Context, t time.Time) error {
	if d := time.Until(t); d > 0 {
		tm := time.NewTimer(d)
		defer tm.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tm.C:
		}
	}
	c.due = t
	return nil
}

// Measured is when the run starts measuring: the end of the closed model's
// warm-up (the run's start otherwise). A session that signs in during the
// warm-up may wait for it, so that the logins do not compete with the load
// being measured.
func (c *Client) Measured() time.Time { return c.run.rec.start }

// Over reports whether the run's load time has ended: a session that loops
// (log in once, then act many times) stops when it is.
func (c *Client) Over() bool { return !c.end.IsZero() && !time.Now().Before(c.end) }

// Record adds a custom measurement, such as the delay from a post to its
// delivery on a stream, to the report's HDR histogram named name (the
// report's "samples"); it does not count as a request.
func (c *Client) Record(name string, d time.Duration) { c.run.rec.sample(name, time.Now(), d) }

// Cookies returns a copy of the session's cookies: a scenario can keep a
// signed-in identity and hand it to a later session (SetCookies).
func (c *Client) Cookies() []*http.Cookie {
	return append([]*http.Cookie(nil), c.http.Jar.Cookies(c.base)...)
}

// SetCookies puts cookies into the session's jar.
func (c *Client) SetCookies(cs []*http.Cookie) { c.http.Jar.SetCookies(c.base, cs) }

// Intn returns a random number in [0, n) from the run's seeded source.
func (c *Client) Intn(n int) int { return int(c.rng(int64(n))) }

// URL resolves path against the target, for requests built by hand (Do).
func (c *Client) URL(path string) string { return c.resolve(path) }

func (c *Client) resolve(path string) string {
	u, err := c.base.Parse(path)
	if err != nil {
		return c.base.String() + path
	}
	return u.String()
}

// Error kinds, as the report counts them.
const (
	KindRefused = "refused"
	KindTimeout = "timeout"
	Kind4xx     = "4xx"
	Kind5xx     = "5xx"
	KindConnect = "connect" // could not open a connection (e.g. no local ports left)
	KindOther   = "other"
	KindCapped  = "capped" // the generator's own session cap, not the server
)

func errKind(ctx context.Context, err error) string {
	if err == nil {
		return ""
	}
	var se *StatusError
	var ne net.Error
	switch {
	case errors.As(err, &se) && se.Status >= 500:
		return Kind5xx
	case errors.As(err, &se):
		return Kind4xx
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return KindRefused
	case ctx.Err() != nil:
		return "" // the run ended: not the server's fault
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return KindTimeout
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Op == "dial" {
		return KindConnect
	}
	return KindOther
}

// jar is a session's cookie jar for one target host: much smaller than
// net/http/cookiejar, which a run holds tens of thousands of.
type jar struct{ cookies []*http.Cookie }

func (j *jar) SetCookies(_ *url.URL, cs []*http.Cookie) {
	for _, c := range cs {
		j.del(c.Name)
		if c.MaxAge >= 0 && c.Value != "" {
			j.cookies = append(j.cookies, &http.Cookie{Name: c.Name, Value: c.Value})
		}
	}
}

func (j *jar) del(name string) {
	for i, c := range j.cookies {
		if c.Name == name {
			j.cookies = append(j.cookies[:i], j.cookies[i+1:]...)
			return
		}
	}
}

func (j *jar) Cookies(*url.URL) []*http.Cookie { return j.cookies }
