// Package memlimit chooses the Go runtime's soft memory limit (GOMEMLIMIT)
// for a tutti process: by default half of the memory the process may use,
// the smaller of the machine's (/proc/meminfo MemTotal) and its control
// group's (cgroup v2 memory.max, v1 memory.limit_in_bytes).
//
// tutti runs with GOGC=400, which lets garbage grow to five times the live
// heap between collections: fast, but on a small server a burst (a login
// storm: argon2id's 19 MiB per hash) could take the process past what the
// machine or the container allows, and the kernel kills it. Under the soft
// limit the collector stays relaxed; near it, it collects as often as it must.
//
// Why half: the limit covers only Go's memory. The rest of the machine, or
// of the container (whose limit is charged with them too), holds the page
// cache that keeps SQLite's files hot, the kernel's socket buffers (10,000
// live streams), and on a shared server PostgreSQL, Redis and nginx.
//
// Only the process start (internal/app, from --memory-limit) uses it; apps
// do not.
package memlimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
)

// Fraction is the default limit's share of the available memory.
const Fraction = 0.5

// unlimited: cgroup v1 reports "no limit" as a number near 2^63.
const unlimited = 1 << 62

// Available is the memory the process may use, read from fsys (the root file
// system, os.DirFS("/"), or a test's tree): the smaller of MemTotal and the
// memory limits of the process's control group and its ancestors. source
// says which file set it.
func Available(fsys fs.FS) (bytes int64, source string, err error) {
	bytes, err = memTotal(fsys)
	if err != nil {
		return 0, "", err
	}
	source = "/proc/meminfo MemTotal"
	for _, f := range cgroupLimitFiles(fsys) {
		if n, ok := readLimit(fsys, f); ok && n < bytes {
			bytes, source = n, "/"+f
		}
	}
	return bytes, source, nil
}

// Default is the limit tutti applies when none is configured: Fraction of
// Available.
func Default(fsys fs.FS) (limit int64, source string, err error) {
	avail, source, err := Available(fsys)
	if err != nil {
		return 0, "", err
	}
	return int64(float64(avail) * Fraction), source, nil
}

// memTotal reads MemTotal from /proc/meminfo.
func memTotal(fsys fs.FS) (int64, error) {
	b, err := fs.ReadFile(fsys, "proc/meminfo")
	if err != nil {
		return 0, fmt.Errorf("memlimit: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != "MemTotal" {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n <= 0 {
			break
		}
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		return n, nil
	}
	return 0, errors.New("memlimit: no MemTotal in /proc/meminfo")
}

// cgroupLimitFiles lists the files that may hold a memory limit for this
// process: for each of its cgroups (from /proc/self/cgroup), the limit file
// of that cgroup and of every ancestor up to the mount's root (a container
// without a cgroup namespace sees its host's path, of which only the root
// may be mounted).
func cgroupLimitFiles(fsys fs.FS) []string {
	b, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return nil
	}
	var files []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		var dir, file string
		switch {
		case parts[0] == "0" && parts[1] == "": // v2
			dir, file = "sys/fs/cgroup", "memory.max"
		case hasController(parts[1], "memory"): // v1
			dir, file = "sys/fs/cgroup/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		for p := path.Clean("/" + parts[2]); ; p = path.Dir(p) {
			files = append(files, path.Join(dir, p, file))
			if p == "/" {
				break
			}
		}
	}
	return files
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// readLimit reads a cgroup limit file: a byte count, "max" (v2) or a number
// near 2^63 (v1) for none.
func readLimit(fsys fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 || n >= unlimited {
		return 0, false
	}
	return n, true
}

// ParseSize reads a size: bytes ("1073741824") or a number with a unit,
// binary (KiB, MiB, GiB, TiB) or decimal (KB, MB, GB, TB; K, M, G, T are
// taken as binary), e.g. "512MiB", "1.5GiB".
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	mult := map[string]float64{"": 1, "B": 1,
		"K": 1 << 10, "KIB": 1 << 10, "KB": 1e3,
		"M": 1 << 20, "MIB": 1 << 20, "MB": 1e6,
		"G": 1 << 30, "GIB": 1 << 30, "GB": 1e9,
		"T": 1 << 40, "TIB": 1 << 40, "TB": 1e12}[strings.ToUpper(unit)]
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || mult == 0 || f < 0 {
		return 0, fmt.Errorf("size %q: want bytes or a number with a unit such as 512MiB or 2GiB", s)
	}
	return int64(f * mult), nil
}

// PeakResident is the process's peak resident memory since it started
// (VmHWM in /proc/self/status), read from fsys.
func PeakResident(fsys fs.FS) (int64, error) {
	b, err := fs.ReadFile(fsys, "proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("memlimit: %w", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return n * 1024, nil
				}
			}
			break
		}
	}
	return 0, errors.New("memlimit: no VmHWM in /proc/self/status")
}
