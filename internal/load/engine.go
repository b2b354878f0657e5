package load

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Session is what one simulated person does.
type Session struct {
	Name   string
	Weight int // relative chance of being picked
	Run    func(ctx context.Context, c *Client) error
}

// Phase is a stretch of the open model: Rate new sessions per second for
// Duration, at exponential intervals; or, if Count is set, exactly Count
// sessions at uniformly random moments of Duration (a burst: "N runners all
// starting within 30 s").
type Phase struct {
	Duration time.Duration
	Rate     float64
	Count    int
}

// Rates are the open model's phases of d each, one for each arrival rate
// (new sessions a second): a scenario's default ramp.
func Rates(d time.Duration, rates ...float64) []Phase {
	ps := make([]Phase, len(rates))
	for i, r := range rates {
		ps[i] = Phase{Duration: d, Rate: r}
	}
	return ps
}

// Scenario is an app's load test.
type Scenario struct {
	Name, Description string
	Sessions          []Session
	Phases            []Phase // the default open-model phases
	// Grace is how long sessions begun in the phases may go on after them
	// (default 15 s): a scenario whose people think for minutes needs more.
	Grace time.Duration
}

// Options are a run's settings that a scenario may need.
type Options struct {
	Target   *url.URL
	SeedFile string            // ids written by `tutti seed <app>`
	Params   map[string]string // scenario options (tutti load run --opt key=value)
	// read notes the options a scenario asked for (options.go), so that a
	// misspelt one is refused rather than ignored; nil: not noted.
	read map[string]bool
}

// Factory builds a scenario.
type Factory func(opts Options) (*Scenario, error)

// Config is one run.
type Config struct {
	Target      *url.URL
	Phases      []Phase       // open model, if Closed == 0
	Closed      int           // closed model: this many sessions loop ...
	Duration    time.Duration // ... for this long,
	Warmup      time.Duration // ... after this long unmeasured (sessions log in, caches fill)
	Timeout     time.Duration // per request
	MaxSessions int64         // sessions alive at once, at most
	Grace       time.Duration // after the last phase, in-flight sessions may finish within this (default: the scenario's)
	Seed        uint64
	// Shared makes every session use one pool of connections (raw
	// throughput runs). By default each simulated person has its own, as a
	// browser does: opened when needed, closed after KeepAlive idle.
	Shared bool
	// KeepAlive is how long a person's idle connection stays open
	// (default 5 s, Apache's keep-alive): a think time longer than this
	// costs a new connection, as it does a browser when the server's
	// keep-alive ends. It also bounds the connections a rush of people
	// who mostly think holds open, on both sides.
	KeepAlive time.Duration
	// Sources spreads people's connections over this many loopback source
	// addresses (127.0.0.1, .2, ...) so that tens of thousands of open
	// connections do not run out of one address's ephemeral ports
	// (default 16 for an IPv4 loopback target; 1: the system's choice).
	Sources int
	// TLS is for an https target (nil: the system's roots, as
	// SSL_CERT_FILE names them).
	TLS *tls.Config
	// MemoryEvery is how often the server's resident memory is read from
	// its /metrics (Result.Server); 0: never.
	MemoryEvery time.Duration
	Progress    func(Progress) // told every second

	files int // the open files the generator counts on (0: its limit); tests set it
}

// Progress is a running run's totals so far, told every second.
type Progress struct {
	Elapsed           time.Duration
	Arrivals, Active  int64 // sessions begun; alive now
	Requests, Errors  int64
	Succeeded, Failed int64         // sessions ended well; ended otherwise
	Duration          time.Duration // the phases' (or the closed run's) length, grace not counted
}

// runState is shared by every session of a run.
type runState struct {
	rec   *recorder
	pages *pageCache
}

func (s *runState) record(name string, due, end time.Time, status int, kind string, err error) {
	s.rec.request(name, due, end, status, kind, err)
}

// CheckTarget refuses targets that are not loopback addresses.
func CheckTarget(u *url.URL) error {
	if u == nil || (u.Scheme != "http" && u.Scheme != "https") {
		return errors.New("load: the target must be an http:// or https:// URL")
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("load: target %q is not a loopback address; load tests only target this machine", host)
	}
	return nil
}

// Run runs sc and returns its result. It stops by itself: after the phases
// (or the closed duration) plus the grace period at the latest.
func Run(ctx context.Context, sc *Scenario, cfg Config) (*Result, error) {
	if err := CheckTarget(cfg.Target); err != nil {
		return nil, err
	}
	if len(sc.Sessions) == 0 {
		return nil, errors.New("load: the scenario has no sessions")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = 100_000
	}
	if cfg.Grace <= 0 {
		cfg.Grace = cmp.Or(sc.Grace, 15*time.Second)
	}
	if cfg.KeepAlive <= 0 {
		cfg.KeepAlive = 5 * time.Second
	}
	var total time.Duration
	var bounds []time.Duration // end of each phase
	if cfg.Closed > 0 {
		if cfg.Duration <= 0 {
			return nil, errors.New("load: a closed run needs a duration")
		}
		if cfg.Warmup < 0 {
			return nil, errors.New("load: negative warm-up")
		}
		total = cfg.Warmup + cfg.Duration
		bounds = []time.Duration{total}
	} else {
		if cfg.Warmup != 0 {
			return nil, errors.New("load: a warm-up is for the closed model only")
		}
		if len(cfg.Phases) == 0 {
			return nil, errors.New("load: no phases")
		}
		cfg.Phases = slices.Clone(cfg.Phases)
		for i, p := range cfg.Phases {
			if p.Count > 0 {
				p.Rate = float64(p.Count) / p.Duration.Seconds()
				cfg.Phases[i] = p
			}
			if p.Duration <= 0 || p.Count < 0 || p.Rate <= 0 || math.IsInf(p.Rate, 0) || math.IsNaN(p.Rate) {
				return nil, fmt.Errorf("load: bad phase %+v", p)
			}
			total += p.Duration
			bounds = append(bounds, total)
		}
	}
	start := time.Now()
	phaseAt := func(t time.Time) int {
		d := t.Sub(start)
		for i, b := range bounds {
			if d < b {
				return i
			}
		}
		return len(bounds) - 1
	}
	rec := newRecorder(start.Add(cfg.Warmup), len(bounds), phaseAt)
	stopMemory := func() *Server { return nil }
	if cfg.MemoryEvery > 0 {
		stopMemory = sampleMemory(ctx, cfg.Target, cfg.MemoryEvery)
	}
	state := &runState{rec: rec, pages: &pageCache{seed: maphash.MakeSeed()}}
	conns := newConnections(cfg)
	defer conns.close()
	gen := newGeneratorMemory()

	hard, cancel := context.WithDeadline(ctx, start.Add(total+cfg.Grace))
	defer cancel()
	loadCtx, stopLoad := context.WithDeadline(hard, start.Add(total))
	defer stopLoad()

	var mu sync.Mutex
	seed := cfg.Seed
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	rand64 := func(n int64) int64 {
		if n <= 0 {
			return 0
		}
		mu.Lock()
		defer mu.Unlock()
		return rng.Int64N(n)
	}
	weights := 0
	for _, s := range sc.Sessions {
		weights += max(s.Weight, 0)
	}
	if weights == 0 {
		return nil, errors.New("load: every session has weight 0")
	}
	pick := func() *Session {
		n := int(rand64(int64(weights)))
		for i := range sc.Sessions {
			if n -= max(sc.Sessions[i].Weight, 0); n < 0 {
				return &sc.Sessions[i]
			}
		}
		return &sc.Sessions[len(sc.Sessions)-1]
	}
	var active, arrivals atomic.Int64
	var wg sync.WaitGroup
	runOne := func(s *Session, due time.Time, sctx context.Context) {
		c := &Client{run: state, base: cfg.Target, due: due, timeout: cfg.Timeout, rng: rand64, end: start.Add(total)}
		transport, done := conns.person()
		defer done()
		c.http = http.Client{Transport: transport, Jar: &jar{}}
		err := s.Run(sctx, c)
		if sctx.Err() != nil && err != nil {
			return // cut off by the end of the run: neither success nor failure
		}
		rec.session(s.Name, due, time.Now(), sessionOutcome(hard, err))
	}
	progressDone, progressStopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(progressStopped)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-progressDone:
				return
			case now := <-t.C:
				rec.noteActive(now, active.Load())
				gen.sample(active.Load())
				if cfg.Progress != nil {
					p := rec.snapshot()
					p.Elapsed, p.Arrivals, p.Active, p.Duration = now.Sub(start), arrivals.Load(), active.Load(), total
					cfg.Progress(p)
				}
			}
		}
	}()

	if cfg.Closed > 0 {
		for range cfg.Closed {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for loadCtx.Err() == nil {
					now := time.Now()
					if !now.Before(start.Add(total)) { // the timer may fire a little late
						break
					}
					arrivals.Add(1)
					rec.arrival(now, active.Add(1))
					runOne(pick(), now, hard)
					active.Add(-1)
				}
			}()
		}
	} else {
		// Open model: exponential inter-arrival times at each phase's rate;
		// a session starts when due even if earlier ones are still running.
		next := start
		for i, p := range cfg.Phases {
			end := start.Add(bounds[i])
			burst := burstTimes(p, next, rand64)
			for {
				if p.Count > 0 {
					if len(burst) == 0 {
						next = end
						break
					}
					next, burst = burst[0], burst[1:]
				} else {
					next = next.Add(time.Duration(rng64exp(rand64) / p.Rate * float64(time.Second)))
				}
				if !next.Before(end) {
					next = end
					break
				}
				// A burst starts every one of its sessions, even if the timer
				// wakes the last of them after the phase's end.
				wait := loadCtx
				if p.Count > 0 {
					wait = ctx
				}
				if d := time.Until(next); d > 0 {
					select {
					case <-wait.Done():
					case <-time.After(d):
					}
				}
				if wait.Err() != nil {
					break
				}
				if active.Load() >= cfg.MaxSessions {
					rec.refuse(next)
					continue
				}
				arrivals.Add(1)
				rec.arrival(next, active.Add(1))
				wg.Add(1)
				go func(s *Session, due time.Time) {
					defer wg.Done()
					defer active.Add(-1)
					runOne(s, due, hard)
				}(pick(), next)
			}
		}
		<-loadCtx.Done()
	}
	gen.sample(active.Load()) // a run shorter than a second has one sample
	wg.Wait()
	close(progressDone)
	<-progressStopped // no Progress call after Run returns
	res := rec.result(sc, cfg, time.Since(start)-cfg.Warmup)
	res.Server = stopMemory()
	res.Generator = gen.result()
	return res, nil
}

// burstTimes are a Count phase's arrival times from from, sorted: uniformly
// random within its duration.
func burstTimes(p Phase, from time.Time, rand64 func(int64) int64) []time.Time {
	if p.Count <= 0 {
		return nil
	}
	offs := make([]int64, p.Count)
	for i := range offs {
		offs[i] = rand64(int64(p.Duration))
	}
	slices.Sort(offs)
	ts := make([]time.Time, len(offs))
	for i, o := range offs {
		ts[i] = from.Add(time.Duration(o))
	}
	return ts
}

// Outcome is implemented by a session's error that names how it ended
// ("sold_out"): the report counts failed sessions by outcome.
type Outcome interface{ Outcome() string }

// sessionOutcome is how a session ended: "" for success, its error's
// Outcome, or the kind of its failed request.
func sessionOutcome(ctx context.Context, err error) string {
	if err == nil {
		return ""
	}
	var o Outcome
	if errors.As(err, &o) {
		return o.Outcome()
	}
	return cmp.Or(errKind(ctx, err), KindOther)
}

// rng64exp draws from the exponential distribution with mean 1.
func rng64exp(rand64 func(int64) int64) float64 {
	u := (float64(rand64(1<<53)) + 0.5) / (1 << 53)
	return -math.Log(u)
}
