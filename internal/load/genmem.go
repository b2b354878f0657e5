package load

import (
	"runtime"
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
	Goroutines      int   `json:"goroutines_at_peak"`   // at the same moment
	Samples         int   `json:"memory_samples"`
}

type generatorMemory struct {
	mu  sync.Mutex
	gen Generator
}

func newGeneratorMemory() *generatorMemory {
	g := &generatorMemory{}
	g.gen.BaseBytes = heldBytes()
	return g
}

// heldBytes is the memory the Go runtime holds from the system (stacks,
// heap, its own), less what it has handed back.
func heldBytes() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys - m.HeapReleased)
}

func (g *generatorMemory) sample(active int64) {
	b := heldBytes()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gen.Samples++
	g.gen.PeakBytes = max(g.gen.PeakBytes, b)
	if active >= g.gen.PeakActive && active > 0 {
		g.gen.PeakActive, g.gen.BytesAtPeak, g.gen.Goroutines = active, b, runtime.NumGoroutine()
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
	}
	return &gen
}
