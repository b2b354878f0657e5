// Package redistest gives tests a Redis: the shared one (TUTTI_TEST_REDIS)
// under a key prefix of their own, removed at cleanup (never a flush), or a
// redis-server of their own that they can stop and start again.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/tutti-dev/tutti/internal/redisx"
	"github.com/tutti-dev/tutti/internal/testenv"
)

// URL is the shared test Redis; the test is skipped without one.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TUTTI_TEST_REDIS")
	if u == "" {
		t.Skip("TUTTI_TEST_REDIS not set (e.g. redis://127.0.0.1:6379/0)")
	}
	return u
}

// Prefix is a fresh key prefix; its keys are deleted at cleanup from the
// Redis at url.
func Prefix(t testing.TB, url string) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	p := "test:" + hex.EncodeToString(b[:]) + ":"
	t.Cleanup(func() {
		opts, err := redis.ParseURL(url)
		if err != nil {
			return
		}
		c := redis.NewClient(opts)
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, pat := range []string{p + "*", "rate:" + p + "*"} {
			iter := c.Scan(ctx, 0, pat, 500).Iterator()
			for iter.Next(ctx) {
				c.Del(ctx, iter.Val())
			}
		}
	})
	return p
}

// Client is a guarded client on the shared test Redis under a fresh prefix.
func Client(t testing.TB) *redisx.Client {
	t.Helper()
	u := URL(t)
	return On(t, u, Prefix(t, u))
}

// On is a guarded client on the Redis at url with prefix, closed at cleanup.
func On(t testing.TB, url, prefix string) *redisx.Client {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = time.Second, time.Second, time.Second
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries, opts.DialerRetries = -1, 1 // a stopped server fails at once
	r := redis.NewClient(opts)
	t.Cleanup(func() { r.Close() })
	return redisx.New(r, prefix, slog.New(slog.DiscardHandler))
}

// Server is a redis-server of the test's own, on 127.0.0.1:Port, without
// persistence unless Keep; it is stopped at cleanup.
type Server struct {
	t    testing.TB
	Port int
	cmd  *exec.Cmd
	dir  string // Keep's append-only file; "": none
}

// Start runs redis-server on a port that 127.0.0.1:0 gave, kept across
// Stop and Start (tests that need one skip without TUTTI_TEST_REDIS, like
// the others; without the binary, testenv.Program skips them or, where
// the run requires it, fails them).
func Start(t testing.TB) *Server {
	t.Helper()
	URL(t)
	testenv.Program(t, "redis-server")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, Port: ln.Addr().(*net.TCPAddr).Port}
	ln.Close()
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// WaitUnpaused waits until c no longer skips Redis after a failure (its
// Pause), as a test that restarted Redis needs before it asserts what
// Redis holds.
func WaitUnpaused(t testing.TB, c *redisx.Client) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); c.Paused(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Redis still skipped after 30 s (pause %v)", c.Pause)
		}
	}
}

// Keep makes the server keep its data across Stop and Start (an
// append-only file synced on every write, in a temporary directory), as a
// Redis that restarts or comes back from a network outage has it: call it
// before writing what must survive.
func (s *Server) Keep() {
	s.t.Helper()
	s.dir = s.t.TempDir()
	s.Stop()
	s.Start()
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return "redis://127.0.0.1:" + strconv.Itoa(s.Port) + "/0" }

// Start (again) runs the server and waits until it answers.
func (s *Server) Start() {
	s.t.Helper()
	args := []string{"--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1", "--save", "", "--protected-mode", "no"}
	if s.dir == "" {
		args = append(args, "--appendonly", "no")
	} else {
		args = append(args, "--appendonly", "yes", "--appendfsync", "always", "--dir", s.dir)
	}
	s.cmd = exec.Command("redis-server", args...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("redis-server: %v", err)
	}
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + strconv.Itoa(s.Port)})
	defer c.Close()
	for i := 0; ; i++ {
		if c.Ping(context.Background()).Err() == nil {
			return
		}
		if i == 100 {
			s.Stop()
			s.t.Fatalf("redis-server on port %d does not answer", s.Port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server (by its PID) and waits for it to exit; its data is
// lost, as in a crash without persistence.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// RoundTrips counts what a client sends to Redis: one per command or
// pipeline (a script is one command).
type RoundTrips struct{ n atomic.Int64 }

// Count adds a counter of c's round trips to c.
func Count(c *redisx.Client) *RoundTrips {
	rt := &RoundTrips{}
	c.R.AddHook(rt)
	return rt
}

// N is the round trips so far.
func (h *RoundTrips) N() int64 { return h.n.Load() }

// DialHook implements redis.Hook.
func (h *RoundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook implements redis.Hook.
func (h *RoundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error { h.n.Add(1); return next(ctx, cmd) }
}

// ProcessPipelineHook implements redis.Hook.
func (h *RoundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error { h.n.Add(1); return next(ctx, cmds) }
}
