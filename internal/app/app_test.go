package app_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
)

func get(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b), res.Header
}

func TestOperationsAndLanding(t *testing.T) {
	apptest.Each(t, func(t *testing.T, m *app.Main) {
		base := m.URL()
		if code, body, _ := get(t, base+"/healthz"); code != 200 || body != "ok\n" {
			t.Errorf("/healthz: %d %q", code, body)
		}
		if code, _, _ := get(t, base+"/readyz"); code != 200 {
			t.Errorf("/readyz: %d", code)
		}
		code, body, h := get(t, base+"/")
		linked := strings.Contains(body, `href="/meet/"`) && strings.Contains(body, `href="/roar/"`) && strings.Contains(body, `href="/race/"`) &&
			strings.Contains(body, `href="/music/"`)
		if code != 200 || !linked || strings.Count(body, "coming soon") != 1 {
			t.Errorf("landing: %d, meet, music, roar and race linked %v, %d coming soon; want 1", code, linked, strings.Count(body, "coming soon"))
		}
		if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("security headers missing: %v", h)
		}
		if code, body, _ := get(t, base+"/rent/"); code != 200 || !strings.Contains(body, "coming soon") {
			t.Errorf("/rent/: %d", code)
		}
		if code, body, _ := get(t, base+"/no/such/page"); code != 404 || !strings.Contains(body, "Back to the start page") {
			t.Errorf("unknown page: %d", code)
		}
		code, body, _ = get(t, base+"/metrics")
		for _, want := range []string{`tutti_http_requests_total{code="200",route="GET /healthz"}`, "tutti_http_request_duration_seconds_bucket",
			"tutti_cache_hits_total", "tutti_db_connections_open", "go_goroutines", "go_gc_gomemlimit_bytes", "process_resident_memory_bytes", "tutti_process_peak_resident_memory_bytes"} {
			if !strings.Contains(body, want) {
				t.Errorf("/metrics lacks %s", want)
			}
		}
		_ = code
	})
}

func TestCLI(t *testing.T) {
	var out, errb bytes.Buffer
	env := app.Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }, Version: "test"}
	env.Args = []string{"version"}
	if code := app.Run(context.Background(), env); code != 0 || !strings.Contains(out.String(), "tutti test") {
		t.Errorf("version: %d %q", code, out.String())
	}
	env.Args = []string{"frobnicate"}
	if code := app.Run(context.Background(), env); code != 2 || !strings.Contains(errb.String(), "unknown command") {
		t.Errorf("unknown command: %d %q", code, errb.String())
	}
	errb.Reset()
	env.Args = []string{"serve", "--addr", "nonsense"}
	if code := app.Run(context.Background(), env); code != 1 || !strings.Contains(errb.String(), "addr") {
		t.Errorf("bad addr: %d %q", code, errb.String())
	}
	// Seeding a small data set writes the ids the load test reads.
	dir := t.TempDir()
	out.Reset()
	env.Args = []string{"seed", "meet", "--data-dir", dir, "--polls", "3", "--participants", "6", "--timeframes", "12", "--comments", "4"}
	if code := app.Run(context.Background(), env); code != 0 || !strings.Contains(out.String(), "3 polls, 6 participants") {
		t.Fatalf("seed: %d %q %q", code, out.String(), errb.String())
	}
	out.Reset()
	env.Args = []string{"seed", "roar", "--data-dir", dir, "--users", "3", "--roars", "5", "--likes", "2", "--follows", "2", "--password", "pw-for-all"}
	if code := app.Run(context.Background(), env); code != 0 || !strings.Contains(out.String(), `3 users (password "pw-for-all"), 5 roars`) {
		t.Fatalf("seed roar: %d %q %q", code, out.String(), errb.String())
	}
	for _, args := range [][]string{{"seed"}, {"seed", "nope"}} {
		errb.Reset()
		env.Args = args
		if code := app.Run(context.Background(), env); code != 1 || !strings.Contains(errb.String(), "tutti seed meet|music|roar|race") {
			t.Errorf("%v: %d %q; want exit 1 naming the seedable apps", args, code, errb.String())
		}
	}
	errb.Reset()
	fresh := t.TempDir()
	env.Args = []string{"seed", "meet", "--data-dir", fresh, "--polls", "0"}
	if code := app.Run(context.Background(), env); code != 1 || !strings.Contains(errb.String(), "at least one poll") {
		t.Errorf("seed meet --polls 0: %d %q", code, errb.String())
	}
	if entries, _ := os.ReadDir(fresh); len(entries) != 0 {
		t.Errorf("seed with bad flags wrote %d files in the data dir; want none", len(entries))
	}
	out.Reset()
	env.Args = []string{"migrate", "--data-dir", dir}
	if code := app.Run(context.Background(), env); code != 0 {
		t.Errorf("migrate: %d %q", code, errb.String())
	}
}
