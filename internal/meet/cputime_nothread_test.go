//go:build !linux

package meet

import "time"

// threadCPUTime falls back to the process's CPU time where a thread's is
// not at hand.
func threadCPUTime() time.Duration { return cpuTime() }
