package load

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Result is a run's report; it is also the JSON file's schema.
type Result struct {
	Settings Settings         `json:"settings"`
	Seconds  float64          `json:"duration_s"`
	Totals   Totals           `json:"totals"`
	Requests []Stat           `json:"requests"`
	Sessions []Stat           `json:"sessions"`
	Samples  []Stat           `json:"samples,omitempty"` // custom measurements (Client.Record), e.g. SSE delivery delay
	Status   map[string]int64 `json:"status"`
	Errors   map[string]int64 `json:"errors"`
	// ErrorExamples is the first error message of each kind of Errors.
	ErrorExamples map[string]string `json:"error_examples,omitempty"`
	// Failed are the failed sessions by kind and outcome ("register
	// sold_out"): how people's visits ended, where Errors are requests.
	Failed   map[string]int64  `json:"failed_sessions,omitempty"`
	Phases   []PhaseStat       `json:"phases"`
	Timeline []Second          `json:"timeline"`
	Extra    map[string]string `json:"extra,omitempty"`
	Server   *Server           `json:"server,omitempty"` // the server's memory, from its /metrics; nil if unreadable
	// Generator is the load generator's own memory against the people it
	// held at once.
	Generator *Generator `json:"generator,omitempty"`
}

// Settings say how the run was made.
type Settings struct {
	Scenario  string      `json:"scenario"`
	Target    string      `json:"target"`
	Model     string      `json:"model"` // open or closed
	Phases    []PhaseSpec `json:"phases,omitempty"`
	Closed    int         `json:"closed_sessions,omitempty"`
	Duration  float64     `json:"closed_duration_s,omitempty"`
	Warmup    float64     `json:"warmup_s,omitempty"` // closed model: not measured, before the duration
	StartedAt time.Time   `json:"started_at"`
	Seed      uint64      `json:"seed"`
}

// PhaseSpec is one phase as configured.
type PhaseSpec struct {
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"rate"`
}

// Totals are the run's sums.
type Totals struct {
	Requests       int64   `json:"requests"`
	Errors         int64   `json:"errors"`
	RequestsPerSec float64 `json:"requests_per_s"`
	Sessions       int64   `json:"sessions"`
	SessionsFailed int64   `json:"sessions_failed"`
	// SuccessRate is the share of sessions that ended well (0 to 1).
	SuccessRate float64 `json:"success_rate"`
	// PeakRequestsPerSec is the busiest second's requests.
	PeakRequestsPerSec int64 `json:"peak_requests_per_s"`
}

// Stat is one request name or session kind, Tsung-style; latencies in ms.
type Stat struct {
	Name          string  `json:"name"`
	Count         int64   `json:"count"`
	Errors        int64   `json:"errors"`
	Mean          float64 `json:"mean_ms"`
	P50           float64 `json:"p50_ms"`
	P90           float64 `json:"p90_ms"`
	P99           float64 `json:"p99_ms"`
	P999          float64 `json:"p999_ms"`
	Max           float64 `json:"max_ms"`
	Highest10s    float64 `json:"highest_10s_mean_ms"`
	Lowest10s     float64 `json:"lowest_10s_mean_ms"`
	HighestRate   int64   `json:"highest_rate_per_s"`
	RatePerSecond float64 `json:"rate_per_s"`
	// Sessions only: the seconds from the first one's start to the last
	// one's successful end, and the rate an hour that gives (the seed's
	// "estimated hourly registrations").
	SpanSeconds float64 `json:"span_s,omitempty"`
	PerHour     float64 `json:"per_hour,omitempty"`
}

// PhaseStat is one phase's outcome.
type PhaseStat struct {
	Index    int     `json:"index"`
	Rate     float64 `json:"rate"`
	Arrivals int64   `json:"arrivals"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	P50      float64 `json:"p50_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
}

// Second is one second of the run.
type Second struct {
	T        int64            `json:"t"`
	Arrivals int64            `json:"arrivals"`
	Active   int64            `json:"active"`
	Requests int64            `json:"requests"`
	Errors   int64            `json:"errors"`
	Mean     float64          `json:"mean_ms"`
	P99      float64          `json:"p99_ms"`
	Status   map[string]int64 `json:"status,omitempty"`
	Sessions map[string]int64 `json:"sessions,omitempty"` // completed in this second, by kind
}

func ms(us float64) float64 { return math.Round(us) / 1000 }

func stat(name string, s *series, seconds float64) Stat {
	h := s.hist
	st := Stat{Name: name, Count: h.TotalCount(), Errors: s.errors, Mean: ms(h.Mean()),
		P50: ms(float64(h.ValueAtQuantile(50))), P90: ms(float64(h.ValueAtQuantile(90))),
		P99: ms(float64(h.ValueAtQuantile(99))), P999: ms(float64(h.ValueAtQuantile(99.9))), Max: ms(float64(h.Max()))}
	first := true
	for _, w := range s.windows {
		m := float64(w.sum) / float64(w.n)
		if first || m > st.Highest10s*1000 {
			st.Highest10s = m / 1000
		}
		if first || m < st.Lowest10s*1000 {
			st.Lowest10s = m / 1000
		}
		first = false
	}
	st.Highest10s, st.Lowest10s = math.Round(st.Highest10s*1000)/1000, math.Round(st.Lowest10s*1000)/1000
	for _, n := range s.seconds {
		st.HighestRate = max(st.HighestRate, n)
	}
	if seconds > 0 {
		st.RatePerSecond = math.Round(float64(st.Count)/seconds*10) / 10
	}
	return st
}

func (r *recorder) result(sc *Scenario, cfg Config, took time.Duration) *Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	res := &Result{Seconds: math.Round(took.Seconds()*100) / 100, Status: map[string]int64{}, Errors: r.errors, ErrorExamples: r.examples, Failed: r.outcomes}
	res.Settings = Settings{Scenario: sc.Name, Target: cfg.Target.String(), Model: "open", StartedAt: r.start.UTC(), Seed: cfg.Seed}
	if cfg.Closed > 0 {
		res.Settings.Model, res.Settings.Closed, res.Settings.Duration = "closed", cfg.Closed, cfg.Duration.Seconds()
		res.Settings.Warmup = cfg.Warmup.Seconds()
	}
	for _, p := range cfg.Phases {
		if cfg.Closed == 0 {
			res.Settings.Phases = append(res.Settings.Phases, PhaseSpec{p.Duration.Seconds(), p.Rate})
		}
	}
	for _, name := range sortedKeys(r.requests) {
		st := stat(name, r.requests[name], took.Seconds())
		res.Requests = append(res.Requests, st)
		res.Totals.Requests += st.Count + st.Errors
		res.Totals.Errors += st.Errors
	}
	for _, name := range sortedKeys(r.sessions) {
		s := r.sessions[name]
		st := stat(name, s, took.Seconds())
		if span := s.last.Sub(s.first); !s.first.IsZero() && span > 0 {
			st.SpanSeconds = math.Round(span.Seconds()*100) / 100
			st.PerHour = math.Round(float64(st.Count) / span.Hours())
		}
		res.Sessions = append(res.Sessions, st)
		res.Totals.Sessions += st.Count + st.Errors
		res.Totals.SessionsFailed += st.Errors
	}
	for _, name := range sortedKeys(r.samples) {
		res.Samples = append(res.Samples, stat(name, r.samples[name], took.Seconds()))
	}
	res.Totals.Errors += r.errors[KindCapped]
	if took > 0 {
		res.Totals.RequestsPerSec = math.Round(float64(res.Totals.Requests)/took.Seconds()*10) / 10
	}
	for code, n := range r.status {
		res.Status[strconv.Itoa(code)] = n
	}
	for i, h := range r.phases {
		ps := PhaseStat{Index: i + 1, Arrivals: r.phaseArr[i], Requests: r.phaseReq[i], Errors: r.phaseErr[i],
			P50: ms(float64(h.ValueAtQuantile(50))), P99: ms(float64(h.ValueAtQuantile(99))), Max: ms(float64(h.Max()))}
		if cfg.Closed == 0 && i < len(cfg.Phases) {
			ps.Rate = cfg.Phases[i].Rate
		}
		res.Phases = append(res.Phases, ps)
	}
	var secs []int64
	for s := range r.buckets {
		secs = append(secs, s)
	}
	sort.Slice(secs, func(i, j int) bool { return secs[i] < secs[j] })
	for _, s := range secs {
		b := r.buckets[s]
		sec := Second{T: s, Arrivals: b.arrivals, Active: b.active, Requests: b.requests, Errors: b.errors,
			P99: ms(float64(b.hist.ValueAtQuantile(99)))}
		if ok := b.requests - b.errors; ok > 0 {
			sec.Mean = ms(float64(b.sumUS) / float64(ok))
		}
		if len(b.sessions) > 0 {
			sec.Sessions = maps.Clone(b.sessions)
		}
		if len(b.status) > 0 {
			sec.Status = map[string]int64{}
			for code, n := range b.status {
				sec.Status[strconv.Itoa(code)] = n
			}
		}
		res.Timeline = append(res.Timeline, sec)
	}
	res.Totals.PeakRequestsPerSec = res.PeakRequests()
	if n := res.Totals.Sessions; n > 0 {
		res.Totals.SuccessRate = float64(n-res.Totals.SessionsFailed) / float64(n)
	}
	return res
}

// PeakRequests is the busiest second's requests (computed from the
// timeline, so that reports stored before Totals had it give it too).
func (res *Result) PeakRequests() int64 {
	var peak int64
	for _, s := range res.Timeline {
		peak = max(peak, s.Requests)
	}
	return peak
}

// Completed is the sessions that ended well in this second, every kind.
func (s Second) Completed() int64 {
	var n int64
	for _, c := range s.Sessions {
		n += c
	}
	return n
}

// WriteText prints the Tsung-style summary.
func (res *Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "\n%s: %s model against %s, %.1f s\n", res.Settings.Scenario, res.Settings.Model, res.Settings.Target, res.Seconds)
	fmt.Fprintf(w, "requests %d (%.1f/s, peak %d/s), errors %d, sessions %d (%d failed: %.2f %% succeeded), %s\n\n",
		res.Totals.Requests, res.Totals.RequestsPerSec, res.Totals.PeakRequestsPerSec, res.Totals.Errors, res.Totals.Sessions,
		res.Totals.SessionsFailed, 100*res.Totals.SuccessRate, res.Server.memory())
	table := func(title string, stats []Stat) {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\thighest 10s mean\tlowest 10s mean\thighest rate\tmean\tcount\terrors\tp50\tp90\tp99\tp99.9\tmax\t\n", title)
		for _, s := range stats {
			fmt.Fprintf(tw, "%s\t%.2f ms\t%.2f ms\t%d/s\t%.2f ms\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", s.Name, s.Highest10s,
				s.Lowest10s, s.HighestRate, s.Mean, s.Count, s.Errors, s.P50, s.P90, s.P99, s.P999, s.Max)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	table("request", res.Requests)
	table("session", res.Sessions)
	for _, s := range res.Sessions {
		if s.PerHour > 0 {
			fmt.Fprintf(w, "%s: %d in %.1f s from the first start to the last end: %.0f an hour\n", s.Name, s.Count, s.SpanSeconds, s.PerHour)
		}
	}
	if g := res.Generator; g != nil {
		fmt.Fprintf(w, "generator: %d people alive at most, %.0f MiB held then (%.0f MiB before), %.1f KiB a person (%.1f KiB live); %d goroutines\n",
			g.PeakActive, float64(g.BytesAtPeak)/(1<<20), float64(g.BaseBytes)/(1<<20), float64(g.BytesPerSession)/1024,
			float64(g.LiveBytesPerSession)/1024, g.Goroutines)
	}
	fmt.Fprintln(w)
	if len(res.Samples) > 0 {
		table("sample", res.Samples)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "phase\trate/s\tarrivals\trequests\terrors\tp50 ms\tp99 ms\tmax ms\t\n")
	for _, p := range res.Phases {
		fmt.Fprintf(tw, "%d\t%g\t%d\t%d\t%d\t%.2f\t%.2f\t%.2f\t\n", p.Index, p.Rate, p.Arrivals, p.Requests, p.Errors, p.P50, p.P99, p.Max)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nstatus: %s\nerrors: %s\nfailed sessions: %s\n", kv(res.Status), kv(res.Errors), kv(res.Failed))
	for _, k := range slices.Sorted(maps.Keys(res.ErrorExamples)) {
		fmt.Fprintf(w, "first %s error: %s\n", k, res.ErrorExamples[k])
	}
}

func kv(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return strings.Join(parts, " ")
}

// WriteJSON writes the result to path.
func (res *Result) WriteJSON(path string) error {
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadResult reads a JSON result.
func ReadResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// Compare prints a and b side by side per request name, with b/a ratios.
func Compare(w io.Writer, a, b *Result, an, bn string) {
	fmt.Fprintf(w, "a = %s (%s, %s)\nb = %s (%s, %s)\n\n", an, a.Settings.Scenario, a.Settings.StartedAt.Format(time.RFC3339),
		bn, b.Settings.Scenario, b.Settings.StartedAt.Format(time.RFC3339))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "request\trate a\trate b\tb/a\tmean a\tmean b\tb/a\tp50 a\tp50 b\tp99 a\tp99 b\tb/a\terrors a\terrors b\t\n")
	bs := map[string]Stat{}
	for _, s := range b.Requests {
		bs[s.Name] = s
	}
	row := func(name string, x, y Stat) {
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%s\t%.2f\t%.2f\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%s\t%d\t%d\t\n", name,
			x.RatePerSecond, y.RatePerSecond, ratio(y.RatePerSecond, x.RatePerSecond), x.Mean, y.Mean, ratio(y.Mean, x.Mean),
			x.P50, y.P50, x.P99, y.P99, ratio(y.P99, x.P99), x.Errors, y.Errors)
	}
	for _, s := range a.Requests {
		row(s.Name, s, bs[s.Name])
	}
	for _, s := range b.Samples {
		bs["sample "+s.Name] = s
	}
	for _, s := range a.Samples {
		row("sample "+s.Name, s, bs["sample "+s.Name])
	}
	row("ALL", Stat{RatePerSecond: a.Totals.RequestsPerSec, Errors: a.Totals.Errors}, Stat{RatePerSecond: b.Totals.RequestsPerSec, Errors: b.Totals.Errors})
	tw.Flush()
	fmt.Fprintf(w, "\na: %s\nb: %s\n", a.Server.memory(), b.Server.memory())
}

func ratio(b, a float64) string {
	if a == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", b/a)
}

// memory is the server's memory for the summary line.
func (s *Server) memory() string {
	if s == nil {
		return "server memory unknown (no /metrics)"
	}
	out := fmt.Sprintf("server peak RSS %.0f MiB", float64(s.PeakRSS)/(1<<20))
	if s.ProcessPeakRSS > 0 {
		out += fmt.Sprintf(" (%.0f MiB since it started)", float64(s.ProcessPeakRSS)/(1<<20))
	}
	return out
}
