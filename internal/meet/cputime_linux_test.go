//go:build linux

package meet

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPUTime is the CPU time the calling thread has used: lock the
// goroutine to its thread around a measure, and neither the package's other
// tests nor the garbage collector's own workers count.
func threadCPUTime() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return cpuTime()
	}
	return time.Duration(ts.Nano())
}
