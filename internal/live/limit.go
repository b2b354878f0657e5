package live

import "syscall"

// MaxStreams is a Group.Max for this process: half its file descriptors
// (Go raises the soft limit to the hard one at start), so that pages, the
// database and the bus always have the other half.
func MaxStreams() int {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil || l.Cur == 0 {
		return 0
	}
	return int(min(l.Cur/2, 1<<30))
}
