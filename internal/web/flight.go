package web

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/trace"
	"sync/atomic"
	"time"
)

// Flight keeps the last seconds of the Go execution trace in memory (the
// runtime's flight recorder) and writes them to a directory when a request
// takes longer than Slow: what every goroutine did while it waited (the
// database, a lock, the network, the collector), caught when it happened
// rather than reproduced. It writes at most one trace per Every. `tutti
// serve --flight-dir DIR` starts one; tracing costs a few per cent of CPU.
type Flight struct {
	rec   *trace.FlightRecorder
	dir   string
	log   *slog.Logger
	Slow  time.Duration // a request this long writes a trace
	Every time.Duration // at most one trace per Every
	next  atomic.Int64  // unix nanoseconds before which no trace is written
	n     atomic.Int64  // traces written
}

// Flight's defaults: a request over a second is what the race's burst
// must never see; ten seconds of history cover the stall that led to it.
const (
	flightSlow   = time.Second
	flightWindow = 10 * time.Second
	flightEvery  = 30 * time.Second
)

// StartFlight starts the flight recorder, writing into dir (made if
// missing).
func StartFlight(dir string, log *slog.Logger) (*Flight, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("flight recorder: %w", err)
	}
	rec := trace.NewFlightRecorder(trace.FlightRecorderConfig{MinAge: flightWindow, MaxBytes: 64 << 20})
	if err := rec.Start(); err != nil {
		return nil, fmt.Errorf("flight recorder: %w", err)
	}
	log.Info("flight recorder", "dir", dir, "slow", flightSlow)
	return &Flight{rec: rec, dir: dir, log: log, Slow: flightSlow, Every: flightEvery}, nil
}

// Saw notes a request that took d; past Slow, it writes the trace (in the
// background: the request is answered already). A nil Flight does nothing.
func (f *Flight) Saw(d time.Duration) {
	if f == nil || d < f.Slow {
		return
	}
	now := time.Now().UnixNano()
	next := f.next.Load()
	if now < next || !f.next.CompareAndSwap(next, now+int64(f.Every)) {
		return
	}
	go f.write(d)
}

// write saves the recorder's window as DIR/flight-TIME.trace, for `go tool
// trace`.
func (f *Flight) write(d time.Duration) {
	name := filepath.Join(f.dir, "flight-"+time.Now().UTC().Format("20060102T150405.000")+".trace")
	err := func() error {
		file, err := os.Create(name)
		if err != nil {
			return err
		}
		if _, err := f.rec.WriteTo(file); err != nil {
			file.Close()
			return err
		}
		return file.Close()
	}()
	if err != nil {
		f.log.Warn("flight recorder", "err", err)
		return
	}
	f.n.Add(1)
	f.log.Warn("slow request: execution trace written", "took", d, "file", name)
}

// Written is how many traces were written.
func (f *Flight) Written() int64 { return f.n.Load() }

// Stop ends the recording.
func (f *Flight) Stop() {
	if f != nil {
		f.rec.Stop()
	}
}
