package web

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// A slow request writes one execution trace, a fast one none, and a second
// slow one within Every none either.
func TestFlightWritesTraceOfSlowRequest(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "traces")
	f, err := StartFlight(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	runtime.GC() // something in the window, whatever the machine's speed
	f.Saw(f.Slow - time.Millisecond)
	f.Saw(f.Slow)
	f.Saw(3 * f.Slow)
	deadline := time.Now().Add(10 * time.Second)
	for f.Written() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "flight-*.trace"))
	if f.Written() != 1 || len(files) != 1 {
		t.Fatalf("written %d, files %v; want one trace", f.Written(), files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("go 1.")) || len(b) < 1000 {
		t.Fatalf("not an execution trace: %d bytes beginning %q", len(b), b[:min(len(b), 16)])
	}
	var nilFlight *Flight
	nilFlight.Saw(time.Hour) // no recorder: nothing, no panic
	nilFlight.Stop()
}
