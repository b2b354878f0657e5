package load

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/tutti-dev/tutti/internal/memlimit"
)

// DefaultGOGC is the generator's GOGC. Its live heap is its simulated
// people, alive for minutes, and each collection marks all of them: with
// the server's GOGC of 400, a 50,000-runner burst made 18 collections of up
// to 2.4 s each on the generator's one core, and the seconds whose p99
// went over 1 s in the steady part of the run fell in them (the people
// waiting on the collector's assists, not on the server). At 1600 it makes
// six, and holds about twice the memory: 3.1-3.6 GiB with 50,000 people
// alive against 1.7-1.9 GiB, and at most 5.2-6.2 GiB in the run against
// 1.9-2.1 GiB.
const DefaultGOGC = 1600

// relaxGC sets the generator's GOGC to gogc and, so that a machine with
// less memory still collects in time, a soft memory limit of half of what
// the process may use (memlimit.Default); GOGC and GOMEMLIMIT in the
// environment win.
func relaxGC(gogc int, stderr io.Writer) {
	if os.Getenv("GOGC") == "" && gogc > 0 {
		debug.SetGCPercent(gogc)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		if lim, _, err := memlimit.Default(os.DirFS("/")); err == nil {
			debug.SetMemoryLimit(lim)
		} else {
			fmt.Fprintln(stderr, "tutti load: no memory limit:", err)
		}
	}
}
