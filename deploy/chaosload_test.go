package deploy

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The load driver of TestClusterChaos: signed-in users post roars and read
// their timelines, meet participants join polls and answer them, visitors
// read, all through nginx over https at a steady rate. It counts every
// request per phase of the test and keeps every write the site accepted, so
// that the test can look for each of them afterwards.

// site is the cluster as its users see it.
type site struct {
	t       *testing.T
	base    string       // nginx's https URL
	clients atomic.Int64 // made so far (each has its own address)
}

// newClient is one browser: its own HTTP/2 connection to nginx (what
// nginx's listen ... http2 gives browsers), its own cookies; redirects are
// not followed, so that a 303 and its Location are seen. Each comes from
// an address of its own: X-Forwarded-For, which nginx extends and tutti
// believes up to its trusted proxy, so that the per-address rate limits
// see many people rather than one.
func (s *site) newClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	n := s.clients.Add(1)
	return &http.Client{
		Timeout: 10 * time.Second,
		Jar:     jar,
		Transport: fromAddr{ip: fmt.Sprintf("198.51.%d.%d", 100+n/250, 1+n%250), rt: &http.Transport{
			TLSClientConfig:   &tls.Config{InsecureSkipVerify: true}, // the cluster's self-signed certificate
			ForceAttemptHTTP2: true,
		}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// fromAddr sends requests as if from ip (X-Forwarded-For).
type fromAddr struct {
	ip string
	rt http.RoundTripper
}

func (f fromAddr) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Forwarded-For", f.ip)
	return f.rt.RoundTrip(r)
}

// chaosUser is a signed-up roar user.
type chaosUser struct {
	name, email, password string
	client                *http.Client
	signup                []*http.Cookie // the session cookies of the sign-up
}

// cookies are the user's current cookies for the site.
func (u *chaosUser) cookies(base string) []*http.Cookie {
	b, _ := url.Parse(base)
	return u.client.Jar.Cookies(b)
}

// answer is a response read in full.
type answer struct {
	status   int
	location string
	body     string
}

func (a answer) signedOut() bool {
	return a.status == http.StatusSeeOther && strings.HasPrefix(a.location, "/account/login")
}

// send sends a request and reads the answer.
func send(c *http.Client, method, u string, form url.Values, cookies []*http.Cookie) (answer, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		return answer{}, err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		// As a browser's form: the page it was on, where tutti sends a
		// request that nginx sent twice (carried out by a dead instance).
		ref := *req.URL
		ref.Path = path.Dir(ref.Path) + "/"
		req.Header.Set("Referer", ref.String())
	}
	for _, ck := range cookies {
		req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
	}
	res, err := c.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return answer{}, err
	}
	return answer{status: res.StatusCode, location: res.Header.Get("Location"), body: string(b)}, nil
}

// signUp makes a user through the sign-up form.
func (s *site) signUp(name string) *chaosUser {
	s.t.Helper()
	u := &chaosUser{name: name, email: name + "@chaos.example", password: "chaos-pass-" + name, client: s.newClient()}
	a, err := send(u.client, "POST", s.base+"/account/signup",
		url.Values{"username": {u.name}, "email": {u.email}, "password": {u.password}}, nil)
	if err != nil || a.status != http.StatusSeeOther || !strings.HasPrefix(a.location, "/account/settings") {
		s.t.Fatalf("sign up %s: %d to %q (%v); want 303 to /account/settings\n%s", name, a.status, a.location, err, tail(a.body, 500))
	}
	u.signup = u.cookies(s.base)
	if len(u.signup) == 0 {
		s.t.Fatalf("sign up %s: no cookie", name)
	}
	return u
}

// signedIn reports whether cookies are a live session: the account
// settings page answers 200 rather than sending to the login page.
func (s *site) signedIn(c *http.Client, base string, cookies []*http.Cookie) (bool, error) {
	a, err := send(c, "GET", base+"/account/settings", nil, cookies)
	if err != nil {
		return false, err
	}
	switch {
	case a.status == 200:
		return true, nil
	case a.signedOut():
		return false, nil
	}
	return false, fmt.Errorf("GET /account/settings: %d to %q", a.status, a.location)
}

// chaosPoll is a meet poll made by the test.
type chaosPoll struct {
	id, admin string
	day       string // its first day, where participants answer
}

// createPoll makes a poll through the form; its days start a week ahead.
func (s *site) createPoll(c *http.Client, title string) chaosPoll {
	s.t.Helper()
	start := time.Now().UTC().AddDate(0, 0, 7)
	a, err := send(c, "POST", s.base+"/meet/polls", url.Values{
		"title": {title}, "start_date": {start.Format(time.DateOnly)}, "end_date": {start.AddDate(0, 0, 4).Format(time.DateOnly)},
		"day_start": {"09:00"}, "day_end": {"17:00"}, "tz": {"UTC"}, "duration": {"60"},
	}, nil)
	if err != nil || a.status != http.StatusSeeOther || !strings.HasPrefix(a.location, "/meet/polls/") {
		s.t.Fatalf("create poll: %d to %q (%v); want 303 to the admin page\n%s", a.status, a.location, err, tail(a.body, 500))
	}
	admin, _, _ := strings.Cut(a.location, "?")
	id := strings.Split(admin, "/")[3]
	return chaosPoll{id: id, admin: admin, day: start.Format(time.DateOnly)}
}

// phaseStats counts one phase's requests.
type phaseStats struct {
	requests  int
	failed    int // transport errors, 5xx, unexpected answers
	fiveXX    int
	signedOut int       // a signed-in user sent to the login page
	examples  []string  // the first failures
	failures  []failure // every failure
}

// failure is a failed request and when it ran.
type failure struct {
	what       string
	start, end time.Time
}

// chaosLoad runs the traffic and keeps what the site accepted.
type chaosLoad struct {
	s       *site
	users   []*chaosUser
	polls   []chaosPoll
	visitor *http.Client
	phase   atomic.Value // string
	seq     atomic.Int64
	stop    chan struct{}
	wg      sync.WaitGroup

	mu       sync.Mutex
	stats    map[string]*phaseStats
	order    []string          // phases in order
	roars    []string          // bodies of the roars posted (303)
	joined   map[string]string // participant name -> poll id, joined (303)
	answered map[string]int    // participant name -> timeframes added (303)
	userMu   []sync.Mutex      // one user acts in one goroutine at a time
}

// startLoad runs workers goroutines, rate actions a second in all, until
// stopLoad.
func startLoad(s *site, users []*chaosUser, polls []chaosPoll, workers int, rate float64) *chaosLoad {
	l := &chaosLoad{s: s, users: users, polls: polls, visitor: s.newClient(), stop: make(chan struct{}),
		stats: map[string]*phaseStats{}, joined: map[string]string{}, answered: map[string]int{},
		userMu: make([]sync.Mutex, len(users))}
	l.setPhase("start")
	every := time.Duration(float64(workers) / rate * float64(time.Second))
	for w := range workers {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			// Spread the workers over the period.
			time.Sleep(time.Duration(rng.Int64N(int64(every))))
			tick := time.NewTicker(every)
			defer tick.Stop()
			for {
				select {
				case <-l.stop:
					return
				case <-tick.C:
					l.act(rng)
				}
			}
		}()
	}
	return l
}

func (l *chaosLoad) stopLoad() {
	close(l.stop)
	l.wg.Wait()
}

// setPhase labels the requests from now on.
func (l *chaosLoad) setPhase(name string) {
	l.mu.Lock()
	if l.stats[name] == nil {
		l.stats[name] = &phaseStats{}
		l.order = append(l.order, name)
	}
	l.mu.Unlock()
	l.phase.Store(name)
}

// statsOf returns a copy of a phase's counts.
func (l *chaosLoad) statsOf(name string) phaseStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.stats[name]; st != nil {
		return *st
	}
	return phaseStats{}
}

// record counts a request: ok when its status is want, signed out when a
// signed-in request was sent to the login page, failed otherwise.
func (l *chaosLoad) record(what string, start time.Time, a answer, err error, want int) (ok, signedOut bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := l.stats[l.phase.Load().(string)]
	st.requests++
	switch {
	case err == nil && a.signedOut():
		st.signedOut++
		return false, true
	case err == nil && a.status == want:
		return true, false
	}
	st.failed++
	st.failures = append(st.failures, failure{what, start, time.Now()})
	if err == nil && a.status >= 500 {
		st.fiveXX++
	}
	if len(st.examples) < 10 {
		msg := fmt.Sprintf("%s: %v", what, err)
		if err == nil {
			msg = fmt.Sprintf("%s: %d %q %q", what, a.status, a.location, tail(a.body, 200))
		}
		st.examples = append(st.examples, start.Format("15:04:05.000")+"-"+time.Now().Format("05.000")+" "+msg)
	}
	return false, false
}

// act does one thing a user of the site does.
func (l *chaosLoad) act(rng *rand.Rand) {
	base := l.s.base
	switch n := rng.IntN(100); {
	case n < 40: // a signed-in user posts or reads their timeline
		i := rng.IntN(len(l.users))
		if !l.userMu[i].TryLock() {
			return // busy in another goroutine (signing in again)
		}
		defer l.userMu[i].Unlock()
		u := l.users[i]
		if n < 20 {
			body := fmt.Sprintf("chaos roar %d from %s", l.seq.Add(1), u.name)
			start := time.Now()
			a, err := send(u.client, "POST", base+"/roar/roars", url.Values{"body": {body}}, nil)
			ok, out := l.record("POST /roar/roars", start, a, err, http.StatusSeeOther)
			if ok {
				l.mu.Lock()
				l.roars = append(l.roars, body)
				l.mu.Unlock()
			} else if out {
				l.login(u)
			}
			return
		}
		start := time.Now()
		a, err := send(u.client, "GET", base+"/roar/home", nil, nil)
		if _, out := l.record("GET /roar/home", start, a, err, 200); out {
			l.login(u)
		}
	case n < 50: // a participant joins a poll and answers
		p := l.polls[rng.IntN(len(l.polls))]
		name := fmt.Sprintf("chaos guest %d", l.seq.Add(1))
		start := time.Now()
		a, err := send(l.visitor, "POST", base+"/meet/polls/"+p.id+"/participants", url.Values{"name": {name}}, nil)
		if ok, _ := l.record("POST participants", start, a, err, http.StatusSeeOther); !ok {
			return
		}
		l.mu.Lock()
		l.joined[name] = p.id
		l.mu.Unlock()
		if !strings.Contains(a.location, "/p/") {
			return // sent twice and carried out by the dead instance: back to the poll
		}
		own, _, _ := strings.Cut(a.location, "#")
		own, _, _ = strings.Cut(own, "?")
		h := 9 + rng.IntN(6)
		start = time.Now()
		a, err = send(l.visitor, "POST", base+own+"/timeframes", url.Values{"date": {p.day}, "tz": {"UTC"},
			"start": {fmt.Sprintf("%02d:00", h)}, "end": {fmt.Sprintf("%02d:00", h+2)}, "tier": {fmt.Sprint(1 + rng.IntN(3))}}, nil)
		if ok, _ := l.record("POST timeframes", start, a, err, http.StatusSeeOther); ok {
			l.mu.Lock()
			l.answered[name]++
			l.mu.Unlock()
		}
	case n < 70: // someone reads a poll page
		p := l.polls[rng.IntN(len(l.polls))]
		start := time.Now()
		a, err := send(l.visitor, "GET", base+"/meet/polls/"+p.id, nil, nil)
		l.record("GET poll", start, a, err, 200)
	default: // a visitor reads the public timeline or the start page
		path := "/roar/"
		if n >= 95 {
			path = "/"
		}
		start := time.Now()
		a, err := send(l.visitor, "GET", base+path, nil, nil)
		l.record("GET "+path, start, a, err, 200)
	}
}

// login signs u in again through the form (its session was lost).
func (l *chaosLoad) login(u *chaosUser) {
	start := time.Now()
	a, err := send(u.client, "POST", l.s.base+"/account/login",
		url.Values{"login": {u.name}, "password": {u.password}, "next": {"/roar/"}}, nil)
	l.record("POST /account/login", start, a, err, http.StatusSeeOther)
}

// sseEvent is one Server-Sent Event.
type sseEvent struct{ typ, id, data string }

// openSSE reads the event stream at u (with cookies) until ctx ends,
// reconnecting with Last-Event-ID as a browser does when the stream ends.
// It returns once the first connection answered 200.
func openSSE(t *testing.T, ctx context.Context, u string, cookies []*http.Cookie) <-chan sseEvent {
	t.Helper()
	events := make(chan sseEvent, 1000)
	connect := func(last string) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", u, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Accept", "text/event-stream")
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		for _, ck := range cookies {
			req.AddCookie(&http.Cookie{Name: ck.Name, Value: ck.Value})
		}
		res, err := http.DefaultClient.Do(req)
		if err == nil && res.StatusCode != 200 {
			res.Body.Close()
			return nil, fmt.Errorf("GET %s: %d", u, res.StatusCode)
		}
		return res, err
	}
	res, err := connect("")
	if err != nil {
		t.Fatalf("open stream: %v", err)
	}
	go func() {
		last := ""
		for {
			sc := bufio.NewScanner(res.Body)
			var e sseEvent
			for sc.Scan() {
				line := sc.Text()
				switch {
				case line == "":
					if e.typ != "" || e.data != "" {
						if e.id != "" {
							last = e.id
						}
						select { // a reader that stopped listening is not waited for
						case events <- e:
						default:
						}
					}
					e = sseEvent{}
				case strings.HasPrefix(line, "event: "):
					e.typ = line[len("event: "):]
				case strings.HasPrefix(line, "id: "):
					e.id = line[len("id: "):]
				case strings.HasPrefix(line, "data: "):
					e.data += line[len("data: "):]
				}
			}
			res.Body.Close()
			select {
			case events <- sseEvent{typ: "(reconnect)"}:
			default:
			}
			for {
				if ctx.Err() != nil {
					return
				}
				time.Sleep(500 * time.Millisecond)
				if res, err = connect(last); err == nil {
					break
				}
			}
		}
	}()
	return events
}

// waitEvent waits for an event of type typ whose data holds want.
func waitEvent(events <-chan sseEvent, typ, want string, d time.Duration) (bool, []string) {
	var seen []string
	timeout := time.After(d)
	for {
		select {
		case e := <-events:
			seen = append(seen, e.typ)
			if e.typ == typ && strings.Contains(e.data, want) {
				return true, seen
			}
		case <-timeout:
			return false, seen
		}
	}
}
