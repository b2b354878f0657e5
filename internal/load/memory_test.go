package load

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestSampleMemoryKeepsThePeak: the sampler reads the server's /metrics
// while the run lasts and keeps the highest resident memory it saw, and the
// process's own peak (VmHWM) from the last read.
func TestSampleMemoryKeepsThePeak(t *testing.T) {
	rss := []float64{100 << 20, 300 << 20, 200 << 20}
	var served atomic.Int64
	enough := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		n := served.Add(1)
		v := rss[min(int(n)-1, len(rss)-1)]
		fmt.Fprintf(w, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"+
			"# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %g\n"+
			"tutti_process_peak_resident_memory_bytes %g\ngo_goroutines 7\n", v, float64(350<<20))
		if n == int64(len(rss)) {
			close(enough)
		}
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	stop := sampleMemory(context.Background(), u, time.Millisecond)
	<-enough
	got := stop()
	if got == nil || got.PeakRSS != 300<<20 || got.ProcessPeakRSS != 350<<20 || got.Samples < len(rss) {
		t.Fatalf("server = %+v; want peak 300 MiB, process peak 350 MiB, at least %d samples", got, len(rss))
	}
	res := &Result{Server: got}
	var b bytes.Buffer
	res.WriteText(&b)
	if !strings.Contains(b.String(), "server peak RSS 300 MiB (350 MiB since it started)") {
		t.Errorf("summary lacks the server's memory:\n%s", b.String())
	}
}

// TestSampleMemoryWithoutMetrics: a server without /metrics gives no
// figure, and the run says so.
func TestSampleMemoryWithoutMetrics(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	if got := sampleMemory(context.Background(), u, time.Millisecond)(); got != nil {
		t.Fatalf("server = %+v; want nil", got)
	}
	var b bytes.Buffer
	(&Result{}).WriteText(&b)
	if !strings.Contains(b.String(), "server memory unknown") {
		t.Errorf("summary:\n%s", b.String())
	}
}
