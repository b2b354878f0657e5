package load

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is what the server under test said of itself during a run, read
// from its /metrics (Prometheus text) apart from the measured requests.
type Server struct {
	// PeakRSS is the highest resident memory (process_resident_memory_bytes)
	// sampled once a second during the run, warm-up included.
	PeakRSS int64 `json:"peak_rss_bytes"`
	// ProcessPeakRSS is the process's own peak since it started (VmHWM, the
	// tutti_process_peak_resident_memory_bytes gauge) at the end of the run:
	// no spike escapes it, but it covers earlier runs on the same server.
	ProcessPeakRSS int64 `json:"process_peak_rss_bytes,omitempty"`
	Samples        int   `json:"memory_samples"`
}

// memorySampler reads the target's /metrics every interval until stopped.
type memorySampler struct {
	mu     sync.Mutex
	srv    Server
	cancel context.CancelFunc
	done   chan struct{}
}

// sampleMemory starts sampling target's /metrics; stop returns what was
// seen, or nil if the server never answered (no /metrics, behind a proxy).
func sampleMemory(ctx context.Context, target *url.URL, every time.Duration) (stop func() *Server) {
	ctx, cancel := context.WithCancel(ctx)
	s := &memorySampler{cancel: cancel, done: make(chan struct{})}
	metrics := target.JoinPath("/metrics").String()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 1}}
	go func() {
		defer close(s.done)
		defer client.CloseIdleConnections()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			s.sample(ctx, client, metrics)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return func() *Server {
		cancel()
		<-s.done
		s.sample(context.Background(), client, metrics) // the end's peak
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.srv.Samples == 0 {
			return nil
		}
		srv := s.srv
		return &srv
	}
}

func (s *memorySampler) sample(ctx context.Context, c *http.Client, metrics string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, metrics, nil)
	if err != nil {
		return
	}
	res, err := c.Do(req)
	if err != nil {
		return
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		return // not Prometheus text
	}
	rss, peak, ok := parseMemory(bufio.NewScanner(io.LimitReader(res.Body, 8<<20)))
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.srv.Samples++
	s.srv.PeakRSS = max(s.srv.PeakRSS, rss)
	s.srv.ProcessPeakRSS = max(s.srv.ProcessPeakRSS, peak)
}

// parseMemory finds the resident memory and the process's peak in
// Prometheus text.
func parseMemory(sc *bufio.Scanner) (rss, peak int64, ok bool) {
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, val, found := strings.Cut(line, " ")
		if !found {
			continue
		}
		var dst *int64
		switch name {
		case "process_resident_memory_bytes":
			dst, ok = &rss, true
		case "tutti_process_peak_resident_memory_bytes":
			dst = &peak
		default:
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
			*dst = int64(f)
		}
	}
	return rss, peak, ok
}
