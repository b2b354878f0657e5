// Package apptest starts a real tutti server for end-to-end tests: listening
// on 127.0.0.1:0, on a temporary SQLite file or a fresh PostgreSQL schema,
// or a cluster of two behind nginx (TUTTI_TEST_NGINX, see Each and
// StartCluster). A test that is about one process (its shutdown, its
// memory, its own metrics) calls Start or StartWith, never Each or One.
package apptest

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
)

// Each runs fn once per database (SQLite always; PostgreSQL when
// TUTTI_TEST_POSTGRES is set), each with its own fresh server, and once more
// as "cluster" when TUTTI_TEST_NGINX is set: then m is instance A of a
// Cluster and m.URL() is its nginx, so that every request goes through
// nginx to either instance (with TUTTI_TEST_NGINX=only, that is the only
// run). With TUTTI_TEST_NGINX=later (CI's PostgreSQL step, its cluster
// step coming later) the PostgreSQL run is left to the cluster run, which
// serves the same requests from PostgreSQL.
func Each(t *testing.T, fn func(t *testing.T, m *app.Main)) {
	t.Helper()
	switch {
	case clusterLater():
		urls := dbtest.URLsExcept(t, "postgres")
		if len(urls) == 0 {
			t.Logf("%s=later: the run on postgres is the cluster run's", NginxEnv)
		}
		for name, u := range urls {
			t.Run(name, func(t *testing.T) { fn(t, Start(t, u)) })
		}
	case !clusterOnly():
		EachInstance(t, fn)
	}
	if clusterRun() {
		t.Run("cluster", func(t *testing.T) { fn(t, StartCluster(t).A) })
	}
}

// EachRuns reports whether Each runs its function at all in this test run:
// not when each of its runs is another run's (TUTTI_TEST_NGINX=later with
// only postgres asked for, or TUTTI_TEST_DATABASES=none without the
// cluster run). A check that needs every HTTP test to have run asks it.
func EachRuns() bool {
	if clusterRun() {
		return true
	}
	only, ok := os.LookupEnv(dbtest.OnlyEnv)
	if !ok {
		return true // SQLite always
	}
	for _, name := range strings.Split(only, ",") {
		switch strings.TrimSpace(name) {
		case "sqlite":
			return true
		case "postgres":
			if !clusterLater() {
				return true
			}
		}
	}
	return false
}

// EachInstance is Each without the cluster run: for a test about one
// process (a limiter or setting changed on that Main, its own server's
// handling of a connection), which the cluster run cannot express.
func EachInstance(t *testing.T, fn func(t *testing.T, m *app.Main)) {
	t.Helper()
	for name, u := range dbtest.URLs(t) {
		t.Run(name, func(t *testing.T) { fn(t, Start(t, u)) })
	}
}

// Instances is m and, when m is instance A of a Cluster, instance B: the
// processes a test sums over when it counts what one server did (its
// statements, its open streams, its writes), since nginx sends each request
// to either.
func Instances(m *app.Main) []*app.Main {
	if c, ok := clusters.Load(m); ok {
		return []*app.Main{m, c.(*Cluster).B}
	}
	return []*app.Main{m}
}

// Queries is the count of SQL statements run by m's instances.
func Queries(m *app.Main) int64 {
	var n int64
	for _, i := range Instances(m) {
		n += i.DB.Queries()
	}
	return n
}

// One is the server of a test that runs once (the browser tests): a single
// instance on SQLite, or instance A of a Cluster (its URL nginx's) when
// TUTTI_TEST_NGINX is set.
func One(t testing.TB) *app.Main {
	t.Helper()
	if clusterRun() {
		return StartCluster(t).A
	}
	return Start(t, "")
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

// AppOf is m's app of type T (apptest.AppOf[*roar.App](t, m)), for a test
// that looks inside one: the composition root holds no typed handle of any
// app. It fails the test if m hosts none.
func AppOf[T any](tb testing.TB, m *app.Main) T {
	tb.Helper()
	for _, a := range m.Apps {
		if t, ok := a.(T); ok {
			return t
		}
	}
	var zero T
	tb.Fatalf("apptest: no app of type %T in %d apps", zero, len(m.Apps))
	return zero
}
