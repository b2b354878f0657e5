package memlimit

import (
	"os"
	"testing"
	"testing/fstest"
)

const meminfo8G = "MemTotal:        8388608 kB\nMemFree:         1234 kB\n"

func file(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }

func TestAvailable(t *testing.T) {
	tests := []struct {
		name       string
		fs         fstest.MapFS
		want       int64
		wantSource string
	}{
		{"no cgroup", fstest.MapFS{"proc/meminfo": file(meminfo8G)}, 8 << 30, "/proc/meminfo MemTotal"},
		{"cgroup v2 without a limit", fstest.MapFS{
			"proc/meminfo":             file(meminfo8G),
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("max\n"),
		}, 8 << 30, "/proc/meminfo MemTotal"},
		{"cgroup v2 container (namespaced: path /)", fstest.MapFS{
			"proc/meminfo":             file(meminfo8G),
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("536870912\n"),
		}, 512 << 20, "/sys/fs/cgroup/memory.max"},
		{"cgroup v2 host path, a parent's limit is lower", fstest.MapFS{
			"proc/meminfo":     file(meminfo8G),
			"proc/self/cgroup": file("0::/system.slice/tutti.service\n"),
			"sys/fs/cgroup/system.slice/tutti.service/memory.max": file("2147483648\n"),
			"sys/fs/cgroup/system.slice/memory.max":               file("1073741824\n"),
		}, 1 << 30, "/sys/fs/cgroup/system.slice/memory.max"},
		{"cgroup v1 unlimited", fstest.MapFS{
			"proc/meminfo":     file(meminfo8G),
			"proc/self/cgroup": file("4:memory:/process_api/abc\n3:cpuset:/\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("9223372036854771712\n"),
		}, 8 << 30, "/proc/meminfo MemTotal"},
		{"cgroup v1 limit at the mount's root (no namespace)", fstest.MapFS{
			"proc/meminfo":     file(meminfo8G),
			"proc/self/cgroup": file("12:cpu,cpuacct:/x\n4:memory:/docker/abc\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("268435456\n"),
		}, 256 << 20, "/sys/fs/cgroup/memory/memory.limit_in_bytes"},
		{"cgroup v1 own limit", fstest.MapFS{
			"proc/meminfo":     file(meminfo8G),
			"proc/self/cgroup": file("4:memory:/docker/abc\n"),
			"sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": file("805306368\n"),
		}, 768 << 20, "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"},
		{"a limit above the machine's memory", fstest.MapFS{
			"proc/meminfo":             file(meminfo8G),
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("17179869184\n"),
		}, 8 << 30, "/proc/meminfo MemTotal"},
		{"garbage in the limit file", fstest.MapFS{
			"proc/meminfo":             file(meminfo8G),
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("lots\n"),
		}, 8 << 30, "/proc/meminfo MemTotal"},
	}
	for _, tt := range tests {
		got, source, err := Available(tt.fs)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got != tt.want || source != tt.wantSource {
			t.Errorf("%s: Available = %d from %s; want %d from %s", tt.name, got, source, tt.want, tt.wantSource)
		}
	}
	lim, _, err := Default(tests[2].fs)
	if err != nil || lim != 256<<20 {
		t.Errorf("Default in a 512 MiB container = %d, %v; want %d", lim, err, 256<<20)
	}
	if _, _, err := Available(fstest.MapFS{}); err == nil {
		t.Error("Available without /proc/meminfo: no error")
	}
	if _, _, err := Available(fstest.MapFS{"proc/meminfo": file("MemFree: 1 kB\n")}); err == nil {
		t.Error("Available without MemTotal: no error")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"1073741824": 1 << 30, "512MiB": 512 << 20, "512mib": 512 << 20, "1.5GiB": 3 << 29,
		"2G": 2 << 30, "800MB": 800e6, "64 KiB": 64 << 10, "0": 0,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "lots", "12XB", "-1GiB", "GiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): no error", in)
		}
	}
}

func TestPeakResident(t *testing.T) {
	fsys := fstest.MapFS{"proc/self/status": file("Name:\ttutti\nVmPeak:\t 2000000 kB\nVmHWM:\t  340000 kB\nVmRSS:\t  120000 kB\n")}
	if got, err := PeakResident(fsys); err != nil || got != 340000*1024 {
		t.Errorf("PeakResident = %d, %v; want %d", got, err, 340000*1024)
	}
	if _, err := PeakResident(fstest.MapFS{"proc/self/status": file("Name:\ttutti\n")}); err == nil {
		t.Error("no VmHWM: no error")
	}
	if _, err := PeakResident(os.DirFS("/")); err != nil {
		t.Logf("this system: %v", err) // not Linux
	}
}
