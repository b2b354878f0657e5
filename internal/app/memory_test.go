package app

import (
	"math"
	"runtime/debug"
	"testing"
	"testing/fstest"

	"github.com/tutti-dev/tutti/internal/config"
)

func TestMemoryLimit(t *testing.T) {
	container := fstest.MapFS{
		"proc/meminfo":             {Data: []byte("MemTotal: 8388608 kB\n")},
		"proc/self/cgroup":         {Data: []byte("0::/\n")},
		"sys/fs/cgroup/memory.max": {Data: []byte("1073741824\n")},
	}
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		name    string
		setting string
		getenv  func(string) string
		want    int64
	}{
		{"auto: half the container's limit", "auto", env(), 512 << 20},
		{"a size", "768MiB", env(), 768 << 20},
		{"off", "off", env(), 0},
		{"GOMEMLIMIT wins", "768MiB", env("GOMEMLIMIT", "300MiB"), 0},
	} {
		cfg := config.Default()
		cfg.MemoryLimit = c.setting
		got, source, err := memoryLimit(cfg, c.getenv, container)
		if err != nil || got != c.want {
			t.Errorf("%s: %d (%s), %v; want %d", c.name, got, source, err, c.want)
		}
	}
}

// With --cache-bytes unset, the cache is a quarter of the soft memory
// limit, from 16 to 256 MiB; a set size is kept as it is.
func TestCacheSizeFollowsTheMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	for _, c := range []struct {
		limit int64
		set   int
		want  int
	}{
		{512 << 20, 0, 128 << 20},
		{40 << 20, 0, 16 << 20},
		{math.MaxInt64, 0, 256 << 20},
		{512 << 20, 300 << 20, 300 << 20},
	} {
		debug.SetMemoryLimit(c.limit)
		cfg := config.Default()
		cfg.CacheSize = c.set
		if got := cacheSize(cfg); got != c.want {
			t.Errorf("limit %d MiB, --cache-bytes %d: %d MiB; want %d MiB", c.limit>>20, c.set, got>>20, c.want>>20)
		}
		// The decoded values take their quarter of it, not more.
		local, objects := cacheBudget(cfg)
		if local+objects != c.want || objects != c.want/4 {
			t.Errorf("limit %d MiB, --cache-bytes %d: local %d + objects %d bytes; want %d in all, a quarter for objects",
				c.limit>>20, c.set, local, objects, c.want)
		}
	}
}
