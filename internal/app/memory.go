package app

import (
	"fmt"
	"io/fs"
	"log/slog"
	"runtime/debug"

	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/memlimit"
)

// memoryLimit is the soft memory limit `tutti serve` gives the Go runtime
// (see package memlimit): --memory-limit's size, or with "auto" half of the
// memory available (read from fsys: the machine's, or its control group's
// if lower). 0 means none is set: with --memory-limit=off, or when
// GOMEMLIMIT is in the environment (the runtime has applied it already).
func memoryLimit(cfg config.Config, getenv func(string) string, fsys fs.FS) (limit int64, source string, err error) {
	if v := getenv("GOMEMLIMIT"); v != "" {
		return 0, "GOMEMLIMIT=" + v, nil
	}
	switch cfg.MemoryLimit {
	case "off":
		return 0, "--memory-limit=off", nil
	case "auto", "":
		lim, src, err := memlimit.Default(fsys)
		if err != nil {
			return 0, "", err
		}
		return lim, fmt.Sprintf("%.0f %% of %s", memlimit.Fraction*100, src), nil
	default:
		lim, err := memlimit.ParseSize(cfg.MemoryLimit)
		return lim, "--memory-limit", err
	}
}

// applyMemoryLimit sets the process's soft memory limit and returns what
// undoes it (for tests that serve in-process).
func applyMemoryLimit(cfg config.Config, getenv func(string) string, fsys fs.FS, log *slog.Logger) (undo func()) {
	lim, source, err := memoryLimit(cfg, getenv, fsys)
	if err != nil {
		log.Warn("no memory limit: cannot read the memory available", "err", err)
		return func() {}
	}
	if lim <= 0 {
		log.Info("memory limit left to the runtime", "by", source)
		return func() {}
	}
	prev := debug.SetMemoryLimit(lim)
	log.Info("memory limit", "MiB", lim>>20, "from", source)
	if cfg.CacheSize != 0 && int64(cfg.CacheSize) > lim/2 {
		log.Warn("the in-process cache may take more than half the memory limit: lower --cache-bytes or raise --memory-limit",
			"cache_MiB", cfg.CacheSize>>20, "limit_MiB", lim>>20)
	}
	return func() { debug.SetMemoryLimit(prev) }
}

// cacheSize is the in-process cache's capacity: --cache-bytes, or when it is
// 0 a quarter of the runtime's soft memory limit, from 16 to 256 MiB (so a
// small container's cache leaves the heap room, and a large machine's does
// not hold more than the apps' pages need).
func cacheSize(cfg config.Config) int {
	if cfg.CacheSize > 0 {
		return cfg.CacheSize
	}
	return int(min(max(debug.SetMemoryLimit(-1)/4, 16<<20), 256<<20))
}

// cacheBudget splits cacheSize between the in-process byte cache (Local:
// pages, fragments, encoded values) and the decoded values (cache.Objects:
// a race, the newest roars), by cache.SplitBudget: together they are
// --cache-bytes, whatever the apps keep.
func cacheBudget(cfg config.Config) (local, objects int) {
	return cache.SplitBudget(cacheSize(cfg))
}
