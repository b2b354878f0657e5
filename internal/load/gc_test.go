package load

import (
	"io"
	"runtime"
	"runtime/debug"
	"testing"
)

// relaxGC sets the generator's GOGC and a soft memory limit, unless the
// environment sets them.
func TestRelaxGC(t *testing.T) {
	const none = 1<<63 - 1 // the runtime's "no limit"
	before, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(none)
	defer func() { debug.SetGCPercent(before); debug.SetMemoryLimit(limit) }()
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	relaxGC(DefaultGOGC, io.Discard)
	if got := debug.SetGCPercent(100); got != DefaultGOGC {
		t.Errorf("GOGC %d, want %d", got, DefaultGOGC)
	}
	if got := debug.SetMemoryLimit(-1); got <= 0 || got == none {
		t.Errorf("memory limit %d: none set", got)
	}
	t.Setenv("GOGC", "50")
	relaxGC(DefaultGOGC, io.Discard)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC in the environment overridden: %d", got)
	}
}

// The generator's memory at its peak counts live memory beside what it
// holds: the live heap of the last collection and the stacks, within it.
func TestGeneratorMemoryLive(t *testing.T) {
	g := newGeneratorMemory()
	keep := make([][]byte, 100)
	for i := range keep {
		keep[i] = make([]byte, 64<<10)
	}
	runtime.GC()
	g.sample(100)
	r := g.result()
	runtime.KeepAlive(keep)
	// Hand the test's garbage back now: returned later, while another
	// test measures what the generator holds, it would look like a drop.
	debug.FreeOSMemory()
	if r.PeakActive != 100 || r.LiveAtPeak < 100*64<<10 || r.LiveAtPeak > r.BytesAtPeak || r.LiveBytesPerSession <= 0 {
		t.Fatalf("%+v; want 100 people, live memory of at least 6.4 MB within what is held", r)
	}
}
