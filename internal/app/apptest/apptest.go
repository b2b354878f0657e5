// Package apptest starts a real tutti server for end-to-end tests: listening
// on 127.0.0.1:0, on a temporary SQLite file or a fresh PostgreSQL schema.
package apptest

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// Each runs fn once per database (SQLite always; PostgreSQL when
// TUTTI_TEST_POSTGRES is set), each with its own fresh server.
func Each(t *testing.T, fn func(t *testing.T, m *app.Main)) {
	t.Helper()
	for name, u := range dbtest.URLs(t) {
		t.Run(name, func(t *testing.T) { fn(t, Start(t, u)) })
	}
}

// Start starts a server on databaseURL ("" for SQLite in a temp dir) and stops
// it at cleanup.
func Start(t testing.TB, databaseURL string) *app.Main {
	t.Helper()
	return StartWith(t, func(c *config.Config) { c.DatabaseURL = databaseURL })
}

// StartWith starts a server on a temporary SQLite file with the
// configuration as set changes it.
func StartWith(t testing.TB, set func(*config.Config)) *app.Main {
	t.Helper()
	cfg := config.Default()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = t.TempDir()
	cfg.ShutdownTimeout = 5 * time.Second
	set(&cfg)
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config: %v", err)
	}
	log := slog.New(slog.DiscardHandler)
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	m, err := app.New(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatalf("app.New: %v", err)
	}
	if err := m.Listen(); err != nil {
		cancel()
		t.Fatalf("listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		m.Close()
	})
	return m
}

// Client is an HTTP client with a cookie jar that does not follow redirects,
// so tests can assert them.
func Client(t testing.TB) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{
		Jar:     jar,
		Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(string(b))
	return len(b), nil
}
