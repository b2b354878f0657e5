package load

import (
	"runtime"
	"runtime/metrics"
	"sync"
)

// Generator is what the run cost the generator itself: its memory against
// the people alive, sampled once a second, so that a report says how many
// simulated people a machine can hold.
type Generator struct {
	BaseBytes       int64 `json:"base_bytes"`           // before the first person
	PeakBytes       int64 `json:"peak_bytes"`           // the most the Go runtime held from the system
	PeakActive      int64 `json:"peak_active"`          // the most people alive at once
	BytesAtPeak     int64 `json:"bytes_at_peak_active"` // held when that many were alive
	BytesPerSession int64 `json:"bytes_per_active"`     // (BytesAtPeak - BaseBytes) / PeakActive
	// Held memory counts the garbage the collector lets build up (with
	// the generator's GOGC, several times the live heap); live memory is
	// what the people themselves take: the heap marked live by the last
	// collection and the goroutines' stacks.
	BaseLive            int64 `json:"base_live_bytes"`
	LiveAtPeak          int64 `json:"live_bytes_at_peak_active"`
	LiveBytesPerSession int64 `json:"live_bytes_per_active"` // (LiveAtPeak - BaseLive) / PeakActive
	Goroutines          int   `json:"goroutines_at_peak"`    // at the same moment
	Samples             int   `json:"memory_samples"`
}

type generatorMemory struct {
	mu  sync.Mutex
	gen Generator
}

func newGeneratorMemory() *generatorMemory {
	g := &generatorMemory{}
	g.gen.BaseBytes, g.gen.BaseLive = heldBytes(), liveBytes()
	return g
}

// heldBytes is the memory the Go runtime holds from the system (stacks,
// heap, its own), less what it has handed back.
func heldBytes() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys - m.HeapReleased)
}

// liveMetrics are the runtime's measures of live memory: the heap the last
// collection marked live, and the goroutines' stacks.
var liveMetrics = []string{"/gc/heap/live:bytes", "/memory/classes/heap/stacks:bytes"}

// liveBytes is the live heap, as of the last collection, and the stacks.
func liveBytes() int64 {
	s := make([]metrics.Sample, len(liveMetrics))
	for i, name := range liveMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	var n int64
	for _, v := range s {
		if v.Value.Kind() == metrics.KindUint64 {
			n += int64(v.Value.Uint64())
		}
	}
	return n
}

func (g *generatorMemory) sample(active int64) {
	b, live := heldBytes(), liveBytes()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gen.Samples++
	g.gen.PeakBytes = max(g.gen.PeakBytes, b)
	if active >= g.gen.PeakActive && active > 0 {
		g.gen.PeakActive, g.gen.BytesAtPeak, g.gen.LiveAtPeak, g.gen.Goroutines = active, b, live, runtime.NumGoroutine()
	}
}

func (g *generatorMemory) result() *Generator {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gen.Samples == 0 {
		return nil
	}
	gen := g.gen
	if gen.PeakActive > 0 {
		gen.BytesPerSession = max(gen.BytesAtPeak-gen.BaseBytes, 0) / gen.PeakActive
		gen.LiveBytesPerSession = max(gen.LiveAtPeak-gen.BaseLive, 0) / gen.PeakActive
	}
	return &gen
}
