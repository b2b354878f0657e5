package load

import (
	"sort"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histograms hold microseconds from 1 µs to an hour (a session of a slow
// wizard lasts minutes) at 3 significant digits.
func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 3_600_000_000, 3) }

// series is the record of one request name or one session kind.
type series struct {
	hist    *hdrhistogram.Histogram
	errors  int64
	windows map[int64]*window // 10 s windows, by index
	seconds map[int64]int64   // completions per second
	// first and last are a session kind's earliest start and latest
	// successful end: its rate over the run is count / (last - first).
	first, last time.Time
}

type window struct {
	n   int64
	sum int64 // µs
}

// bucket is one second of the run.
type bucket struct {
	arrivals int64
	active   int64 // sessions alive at the end of the second (max seen)
	requests int64
	errors   int64
	sumUS    int64
	hist     *hdrhistogram.Histogram
	status   map[int]int64
	sessions map[string]int64 // sessions completed, by kind
}

// recorder collects a run's measurements; one mutex is plenty at the rates a
// 2-core machine generates.
type recorder struct {
	mu       sync.Mutex
	start    time.Time
	requests map[string]*series
	sessions map[string]*series
	samples  map[string]*series // custom measurements (Client.Record)
	status   map[int]int64
	errors   map[string]int64
	outcomes map[string]int64 // failed sessions by "name outcome"
	buckets  map[int64]*bucket
	phaseAt  func(time.Time) int
	phases   []*hdrhistogram.Histogram
	phaseErr []int64
	phaseArr []int64
	phaseReq []int64
	examples map[string]string // the first error message of each kind
}

func newRecorder(start time.Time, phases int, phaseAt func(time.Time) int) *recorder {
	r := &recorder{start: start, requests: map[string]*series{}, sessions: map[string]*series{}, samples: map[string]*series{},
		status: map[int]int64{}, errors: map[string]int64{}, examples: map[string]string{}, outcomes: map[string]int64{}, buckets: map[int64]*bucket{}, phaseAt: phaseAt,
		phaseErr: make([]int64, phases), phaseArr: make([]int64, phases), phaseReq: make([]int64, phases)}
	for range phases {
		r.phases = append(r.phases, newHist())
	}
	return r
}

func (r *recorder) bucket(t time.Time) *bucket {
	s := int64(t.Sub(r.start) / time.Second)
	b := r.buckets[s]
	if b == nil {
		b = &bucket{hist: hdrhistogram.New(1, 120_000_000, 2), status: map[int]int64{}}
		r.buckets[s] = b
	}
	return b
}

func getSeries(m map[string]*series, name string) *series {
	s := m[name]
	if s == nil {
		s = &series{hist: newHist(), windows: map[int64]*window{}, seconds: map[int64]int64{}}
		m[name] = s
	}
	return s
}

func (s *series) add(start time.Time, end time.Time, us int64, failed bool) {
	if failed {
		s.errors++
		return
	}
	// Clamped: a value past the range would be dropped, and the count with it.
	s.hist.RecordValue(min(max(us, 1), s.hist.HighestTrackableValue()))
	since := end.Sub(start)
	w := s.windows[int64(since/(10*time.Second))]
	if w == nil {
		w = &window{}
		s.windows[int64(since/(10*time.Second))] = w
	}
	w.n++
	w.sum += us
	s.seconds[int64(since/time.Second)]++
}

// request records one request, due at due, answered at end.
// request records one answer (status 0: none) or failure of kind, err
// being the first of its kind kept as an example.
func (r *recorder) request(name string, due, end time.Time, status int, kind string, err error) {
	if end.Before(r.start) { // warm-up: not measured
		return
	}
	us := end.Sub(due).Microseconds()
	r.mu.Lock()
	defer r.mu.Unlock()
	getSeries(r.requests, name).add(r.start, end, us, kind != "")
	if status > 0 {
		r.status[status]++
	}
	b := r.bucket(end)
	b.requests++
	if status > 0 {
		b.status[status]++
	}
	p := r.phaseAt(due)
	r.phaseReq[p]++
	if kind != "" {
		if _, ok := r.examples[kind]; !ok && err != nil {
			r.examples[kind] = err.Error()
		}
		r.errors[kind]++
		b.errors++
		r.phaseErr[p]++
		return
	}
	b.sumUS += us
	b.hist.RecordValue(max(us, 1))
	r.phases[p].RecordValue(max(us, 1))
}

// sample records a custom measurement d, taken at at, under name: it goes
// into its own HDR histogram, not into the request counts.
func (r *recorder) sample(name string, at time.Time, d time.Duration) {
	if at.Before(r.start) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	getSeries(r.samples, name).add(r.start, at, max(d.Microseconds(), 0), false)
}

// session records one finished session (a Tsung transaction).
func (r *recorder) session(name string, start, end time.Time, outcome string) {
	if end.Before(r.start) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	failed := outcome != ""
	if failed {
		r.outcomes[name+" "+outcome]++
	}
	s := getSeries(r.sessions, name)
	s.add(r.start, end, end.Sub(start).Microseconds(), failed)
	if s.first.IsZero() || start.Before(s.first) {
		s.first = start
	}
	if failed {
		return
	}
	s.last = later(s.last, end)
	b := r.bucket(end)
	if b.sessions == nil {
		b.sessions = map[string]int64{}
	}
	b.sessions[name]++
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// arrival counts a new session and the number alive.
func (r *recorder) arrival(at time.Time, active int64) {
	if at.Before(r.start) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.bucket(at)
	b.arrivals++
	b.active = max(b.active, active)
	r.phaseArr[r.phaseAt(at)]++
}

// refuse counts a session the generator could not start (its own cap).
func (r *recorder) refuse(at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors[KindCapped]++
	r.bucket(at).errors++
	r.phaseErr[r.phaseAt(at)]++
}

func (r *recorder) noteActive(at time.Time, active int64) {
	if at.Before(r.start) {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.bucket(at)
	b.active = max(b.active, active)
}

// snapshot is the running totals for the progress bar.
func (r *recorder) snapshot() Progress {
	r.mu.Lock()
	defer r.mu.Unlock()
	var p Progress
	for _, b := range r.buckets {
		p.Requests += b.requests
		p.Errors += b.errors
		for _, n := range b.sessions {
			p.Succeeded += n
		}
	}
	for _, n := range r.outcomes {
		p.Failed += n
	}
	return p
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
