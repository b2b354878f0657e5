package app_test

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/jobs"
)

// A job running when the server is told to stop finishes before Serve
// returns, and is recorded as done.
func TestServeDrainsRunningJobsOnShutdown(t *testing.T) {
	cfg := config.Default()
	cfg.Addr, cfg.DataDir, cfg.ShutdownTimeout = "127.0.0.1:0", t.TempDir(), 10*time.Second
	m, err := app.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // before Close, even when the test fails
	var finished atomic.Bool
	m.Jobs.Handle("test.slow", func(ctx context.Context, j *jobs.Job) error {
		close(started)
		<-release
		finished.Store(true)
		return nil
	})
	if err := m.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- m.Serve(ctx) }()
	if _, err := m.Jobs.Add(context.Background(), "test.slow", nil); err != nil {
		t.Fatal(err)
	}
	<-started
	cancel()
	select {
	case err := <-served:
		t.Fatalf("Serve returned (%v) while a job was running", err)
	case <-time.After(100 * time.Millisecond):
	}
	free()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if !finished.Load() {
		t.Fatal("Serve returned before the job finished")
	}
	if c, _ := m.Jobs.Counts(context.Background()); c != (jobs.Counts{}) {
		t.Errorf("after shutdown: %+v; want the job done and gone", c)
	}
}
