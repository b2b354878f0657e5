package roar

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/load"
)

// The seed's five experiments, one scenario each so that each runs alone,
// plus the live timeline's fan-out. All run against `tutti seed roar`.
//
// Signed-in scenarios (read, write, mixed, the fan-out's posters) log in once
// per identity: a session takes a signed-in identity from the scenario's pool
// (logging in a new seeded user when the pool is empty), does its actions and
// gives it back. By default a session acts until the run ends, so the closed
// model with N sessions measures N users reading or writing, not logging in
// (use --warmup to leave the logins out of the figures); --opt actions=K ends
// a session after K actions, which the open model needs.
//
// The server must run without rate limits (--rate-limits=false, which also
// lifts --roar-posts-per-minute; the scripts pass both): every simulated user
// logs in from 127.0.0.1 and the writers post as fast as they can.

// LoadScenarios are roar's scenarios by name.
func LoadScenarios() map[string]load.Factory {
	return map[string]load.Factory{
		"roar-index":  indexScenario,
		"roar-login":  loginScenario,
		"roar-read":   actScenario("read", "a signed-in user reads the newest 200 roars (GET /roar/), again and again", 10, 0),
		"roar-write":  actScenario("write", "a signed-in user posts roars (POST /roar/roars), again and again", 0, 10),
		"roar-mixed":  actScenario("mixed", "a signed-in user reads (90 %) and posts (10 %)", 9, 1),
		"roar-fanout": fanoutScenario,
	}
}

// defaultPhases are the open model's arrival rates when none are given.
func defaultPhases(rates ...float64) []load.Phase { return load.Rates(30*time.Second, rates...) }

func indexScenario(opts load.Options) (*load.Scenario, error) {
	return &load.Scenario{
		Name:        "roar-index",
		Description: "a visitor GETs the app shell /roar/ (the cached public timeline)",
		Phases:      defaultPhases(100, 200, 400, 800, 1600),
		Sessions: []load.Session{{Name: "index", Weight: 1, Run: func(ctx context.Context, c *load.Client) error {
			_, err := c.Get(ctx, "index", "/roar/")
			return err
		}}},
	}, nil
}

func loginScenario(opts load.Options) (*load.Scenario, error) {
	sc := &load.Scenario{
		Name:        "roar-login",
		Description: "GET the login page, sign in as a seeded user (argon2id each time), land on /roar/",
		Phases:      defaultPhases(2, 5, 10, 20),
	}
	if opts.Target == nil {
		return sc, nil
	}
	s, err := newRoarLoad(opts)
	if err != nil {
		return nil, err
	}
	sc.Sessions = []load.Session{{Name: "login", Weight: 1, Run: func(ctx context.Context, c *load.Client) error {
		return s.login(ctx, c, s.nextUser())
	}}}
	return sc, nil
}

// actScenario is a signed-in session that reads or writes (weights) in a loop.
func actScenario(name, desc string, readW, writeW int) load.Factory {
	return func(opts load.Options) (*load.Scenario, error) {
		sc := &load.Scenario{Name: "roar-" + name, Description: desc + " [opts: actions=K, users=N, read=html|api]",
			Phases: defaultPhases(50, 100, 200, 400)}
		if opts.Target == nil {
			return sc, nil
		}
		s, err := newRoarLoad(opts)
		if err != nil {
			return nil, err
		}
		sc.Sessions = []load.Session{{Name: name, Weight: 1, Run: func(ctx context.Context, c *load.Client) error {
			return s.signedIn(ctx, c, func() error {
				for n := 0; s.actions == 0 || n < s.actions; n++ {
					if c.Over() {
						return nil
					}
					var err error
					if c.Intn(readW+writeW) < readW {
						err = s.read(ctx, c)
					} else {
						err = s.write(ctx, c)
					}
					if err != nil {
						return err
					}
				}
				return nil
			})
		}}}
		return sc, nil
	}
}

// roarLoad is the state the sessions of one run share.
type roarLoad struct {
	ids     *SeedIDs
	actions int  // per session; 0: until the run ends
	readAPI bool // read through GET /roar/api/roars
	next    atomic.Int64
	posts   atomic.Int64
	users   int // signed-in identities at most (0: one per session); the rest wait for one
	mu      sync.Mutex
	made    int        // identities made (logged in or logging in)
	pool    []identity // signed-in, idle
}

type identity struct {
	user    string
	cookies []*http.Cookie
}

func newRoarLoad(opts load.Options) (*roarLoad, error) {
	ids, err := LoadSeedIDs(opts.SeedFile)
	if err != nil {
		return nil, err
	}
	s := &roarLoad{ids: ids}
	if s.actions, err = opts.Int("actions", 0, 0); err != nil {
		return nil, fmt.Errorf("roar: %w", err)
	}
	if s.users, err = opts.Int("users", 0, 0); err != nil {
		return nil, fmt.Errorf("roar: %w", err)
	}
	switch v := opts.String("read", "html"); v {
	case "html":
	case "api":
		s.readAPI = true
	default:
		return nil, fmt.Errorf("roar: option read=%q: want html or api", v)
	}
	return s, nil
}

// nextUser picks the seeded users in turn, so that no account is hit twice
// before all were hit once (the per-account login limit).
func (s *roarLoad) nextUser() string {
	return s.ids.Users[int(s.next.Add(1)-1)%len(s.ids.Users)]
}

// login signs c in as user through the form, as a browser does.
func (s *roarLoad) login(ctx context.Context, c *load.Client, user string) error {
	p, err := c.Get(ctx, "login_page", "/account/login?next=/roar/")
	if err != nil {
		return err
	}
	f, err := p.Form("/account/login")
	if err != nil {
		return err
	}
	f.Set("login", user)
	f.Set("password", s.ids.Password)
	p, err = c.Submit(ctx, "login", f)
	if err != nil {
		return err
	}
	if p.URL.Path != "/roar/" {
		return fmt.Errorf("roar: login as %s ended on %s", user, p.URL.Path)
	}
	return nil
}

// take returns a signed-in identity from the pool, or an empty one to log
// in as a new user; once s.users identities exist it waits for one to come
// back instead. The open model needs that cap: arrivals come faster than
// argon2id logins can be served, and each would otherwise log in anew.
func (s *roarLoad) take(ctx context.Context) (identity, error) {
	for {
		s.mu.Lock()
		if n := len(s.pool); n > 0 {
			var id identity
			id, s.pool = s.pool[n-1], s.pool[:n-1]
			s.mu.Unlock()
			return id, nil
		}
		if s.users == 0 || s.made < s.users {
			s.made++
			s.mu.Unlock()
			return identity{}, nil
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return identity{}, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// signedIn runs act as a signed-in user from the pool (or a new one).
func (s *roarLoad) signedIn(ctx context.Context, c *load.Client, act func() error) error {
	id, err := s.take(ctx)
	if err != nil {
		return err
	}
	if id.user != "" {
		c.SetCookies(id.cookies)
	} else {
		id.user = s.nextUser()
		if err := s.login(ctx, c, id.user); err != nil {
			s.mu.Lock()
			s.made-- // its place goes to the next session
			s.mu.Unlock()
			return err
		}
		// Signed in during the warm-up: wait for the measured part, so that
		// every session's login (argon2id) is done before the reads and
		// writes begin, instead of starving behind them.
		if m := c.Measured(); time.Now().Before(m) {
			if err := c.SleepUntil(ctx, m); err != nil {
				return err
			}
		}
	}
	err = act()
	s.mu.Lock()
	if err == nil || ctx.Err() != nil {
		id.cookies = c.Cookies()
		s.pool = append(s.pool, id)
	} else {
		s.made-- // a failed session's identity is dropped; a new one may take its place
	}
	s.mu.Unlock()
	return err
}

// read gets the newest 200 roars as the signed-in user sees them.
func (s *roarLoad) read(ctx context.Context, c *load.Client) error {
	if s.readAPI {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL("/roar/api/roars"), nil)
		if err != nil {
			return err
		}
		req.Header.Set("Accept", "application/json")
		_, err = c.Do(ctx, "read_api", req)
		return err
	}
	_, err := c.Get(ctx, "read", "/roar/")
	return err
}

// write posts a roar through the compose form's endpoint, asking for JSON
// (201 and the roar) instead of the redirect a browser follows.
func (s *roarLoad) write(ctx context.Context, c *load.Client) error {
	n := s.posts.Add(1)
	v := url.Values{"body": {fmt.Sprintf("Load test roar %d: %s #loadtest", n, seedWords[int(n)%len(seedWords)])}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL("/roar/roars"), strings.NewReader(v.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	p, err := c.Do(ctx, "write", req)
	if err == nil && p.Status != http.StatusCreated {
		err = fmt.Errorf("roar: post answered %d, not 201", p.Status)
	}
	return err
}

// fanoutScenario: listeners hold GET /roar/stream open for the whole run
// while a few posters post at a fixed total rate; each listener records, per
// roar event, the delay from the roar's creation ("at") to its arrival.
func fanoutScenario(opts load.Options) (*load.Scenario, error) {
	sc := &load.Scenario{
		Name: "roar-fanout",
		Description: "the live timeline: --closed N sessions, of which `posters` post `rate` roars/s in all and the rest " +
			"listen on /roar/stream (connecting at `ramp`/s); sample 'delivery' is post-to-arrival [opts: posters=2, rate=5, ramp=2000]",
		Phases: defaultPhases(100),
	}
	if opts.Target == nil {
		return sc, nil
	}
	s, err := newRoarLoad(opts)
	if err != nil {
		return nil, err
	}
	f := &fanout{roarLoad: s}
	if f.rate, err = opts.Float("rate", 5); err != nil {
		return nil, fmt.Errorf("roar: %w", err)
	}
	if f.ramp, err = opts.Float("ramp", 2000); err != nil {
		return nil, fmt.Errorf("roar: %w", err)
	}
	if f.posters, err = opts.Int("posters", 2, 1); err != nil {
		return nil, fmt.Errorf("roar: %w", err)
	}
	sc.Sessions = []load.Session{{Name: "fanout", Weight: 1, Run: f.run}}
	return sc, nil
}

type fanout struct {
	*roarLoad
	posters    int
	rate, ramp float64
	started    atomic.Int64
	once       sync.Once
	t0         time.Time
}

func (f *fanout) run(ctx context.Context, c *load.Client) error {
	f.once.Do(func() { f.t0 = time.Now() })
	i := int(f.started.Add(1) - 1)
	if i < f.posters {
		return f.post(ctx, c, i)
	}
	// Listeners connect at the ramp's pace, not all in the same instant.
	if err := c.SleepUntil(ctx, f.t0.Add(time.Duration(float64(i-f.posters)/f.ramp*float64(time.Second)))); err != nil {
		return nil
	}
	return c.Stream(ctx, "stream", "/roar/stream", nil, func(e *load.Event) error {
		if e.Type != "roar" {
			return nil
		}
		at, ok := eventAt(e.Data)
		if !ok {
			return errors.New("roar: a roar event without \"at\"")
		}
		c.Record("delivery", time.Since(time.UnixMilli(at)))
		return nil
	})
}

// post: poster k of n posts every n/rate seconds, offset by k/rate, until
// the run ends. A failed post is counted and the poster goes on.
func (f *fanout) post(ctx context.Context, c *load.Client, k int) error {
	return f.signedIn(ctx, c, func() error {
		every := time.Duration(float64(f.posters) / f.rate * float64(time.Second))
		next := time.Now().Add(time.Duration(float64(k) / f.rate * float64(time.Second)))
		for ; !c.Over(); next = next.Add(every) {
			if err := c.SleepUntil(ctx, next); err != nil || c.Over() {
				return nil
			}
			f.write(ctx, c)
		}
		return nil
	})
}

// eventAt reads the top-level "at" (unix ms) of a roar event's JSON; it is
// the last field, and a key's quote cannot occur unescaped inside a string.
func eventAt(data []byte) (int64, bool) {
	i := bytes.LastIndex(data, []byte(`"at":`))
	if i < 0 {
		return 0, false
	}
	var n int64
	j := i + len(`"at":`)
	for ; j < len(data) && data[j] >= '0' && data[j] <= '9'; j++ {
		n = n*10 + int64(data[j]-'0')
	}
	return n, j > i+len(`"at":`)
}
