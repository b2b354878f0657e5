package cache

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"
)

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestLocalCountsRealBytes: a full in-process cache takes about its
// capacity of memory, also when its values are buffers with spare capacity
// (as a bytes.Buffer's Bytes often are), and with small values whose
// overhead outweighs them.
func TestLocalCountsRealBytes(t *testing.T) {
	const capacity = 8 << 20
	for _, c := range []struct {
		name     string
		len, cap int
	}{
		{"buffers twice their length", 1000, 2000},
		{"exact values", 2000, 2000},
		{"tiny values", 16, 16},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := heapInUse()
			l := NewLocal(capacity)
			ctx := context.Background()
			for i := range 3 * capacity / (c.len + 200) { // three times what fits
				v := make([]byte, c.len, c.cap)
				l.Set(ctx, fmt.Sprintf("key:%08d", i), v, time.Hour)
			}
			l.c.CleanUp()
			used := heapInUse() - before
			runtime.KeepAlive(l)
			if ratio := float64(used) / capacity; ratio < 0.7 || ratio > 1.3 {
				t.Errorf("a full %d MiB cache uses %.1f MiB of heap (%.2f of its capacity; want 0.7 to 1.3): weights are not real bytes",
					capacity>>20, float64(used)/(1<<20), ratio)
			}
		})
	}
}
