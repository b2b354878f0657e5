package deploy

import (
	"bytes"
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// clusterPort is the port base of the cluster test (deploy/local-cluster
// adds 443 for https, 432 for the primary...), apart from the default 17000.
const clusterPort = 27000

// TestLocalCluster brings up deploy/local-cluster with two instances in a
// fresh state directory, checks the site through nginx, the replica and
// that either instance can serve alone, then takes it down and checks every
// process it started is gone. It needs PostgreSQL 15, Redis, nats-server,
// nginx and openssl installed (CI: the script installs them); MinIO is used
// when built (TUTTI_CLUSTER_BIN).
func TestLocalCluster(t *testing.T) {
	if os.Getenv("TUTTI_TEST_CLUSTER") != "1" {
		t.Skip("TUTTI_TEST_CLUSTER=1 not set")
	}
	state, err := os.MkdirTemp("", "tutti-cluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	// The servers run as postgres when the test runs as root: it must reach the directory.
	if err := os.Chmod(state, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(state, "tutti")
	build := exec.Command("go", "build", "-o", bin, "../cmd/tutti")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	env := append(os.Environ(),
		"TUTTI_CLUSTER_DIR="+state,
		"TUTTI_CLUSTER_PORT="+strconv.Itoa(clusterPort),
		"TUTTI_BIN="+bin,
	)
	if os.Getenv("TUTTI_CLUSTER_BIN") == "" {
		// A MinIO built by an earlier run of the default cluster is reused.
		env = append(env, "TUTTI_CLUSTER_BIN=/tmp/tutti-cluster/bin")
	}
	run := func(args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "./local-cluster", args...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	must := func(args ...string) string {
		t.Helper()
		out, err := run(args...)
		if err != nil {
			t.Fatalf("local-cluster %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	pids := map[string]int{} // the latest PID of each component
	var started []int        // every PID the cluster ever had
	readPIDs := func() {
		t.Helper()
		files, _ := filepath.Glob(filepath.Join(state, "run", "*.pid"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			pids[strings.TrimSuffix(filepath.Base(f), ".pid")] = pid
			if !slices.Contains(started, pid) {
				started = append(started, pid)
			}
		}
	}
	downed := false
	t.Cleanup(func() {
		if !downed {
			if out, err := run("down"); err != nil {
				t.Errorf("down: %v\n%s", err, out)
			}
		}
		if t.Failed() {
			logs, _ := filepath.Glob(filepath.Join(state, "log", "*.log"))
			for _, l := range logs {
				b, _ := os.ReadFile(l)
				t.Logf("--- %s (end)\n%s", l, tail(string(b), 1500))
			}
		}
		for _, pid := range started {
			if running(pid) {
				t.Errorf("pid %d still running after down: killed", pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		os.RemoveAll(state)
	})

	start := time.Now()
	must("up", "2")
	t.Logf("up in %v", time.Since(start).Round(time.Millisecond))
	readPIDs()
	for _, name := range []string{"primary", "replica", "redis", "nats1", "nats2", "nats3", "nginx", "tutti1", "tutti2"} {
		if pids[name] == 0 || !running(pids[name]) {
			t.Fatalf("%s: pid %d not running (pids %v)", name, pids[name], pids)
		}
	}
	if out := must("status"); strings.Contains(out, "fail") || strings.Contains(out, "dead") {
		t.Errorf("status after up:\n%s", out)
	}

	// Idempotent: a second up starts nothing.
	must("up", "2")
	for name, pid := range pids {
		b, _ := os.ReadFile(filepath.Join(state, "run", name+".pid"))
		if got := strings.TrimSpace(string(b)); got != strconv.Itoa(pid) {
			t.Errorf("second up: %s pid %s; want %d unchanged", name, got, pid)
		}
	}

	https := "https://127.0.0.1:" + strconv.Itoa(clusterPort+443)
	client := &http.Client{
		Timeout:       10 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // the cluster's self-signed certificate
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	get := func(u string) (int, http.Header, string) {
		t.Helper()
		res, err := client.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, string(b)
	}
	if code, _, body := get(https + "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("https /healthz through nginx: %d %q; want 200 ok", code, body)
	}
	if code, h, _ := get("http://127.0.0.1:" + strconv.Itoa(clusterPort+80) + "/roar/"); code != 301 || h.Get("Location") != https+"/roar/" {
		t.Errorf("http /roar/: %d to %q; want 301 to %s/roar/", code, h.Get("Location"), https)
	}
	// tutti believes nginx's X-Forwarded-Proto (TUTTI_TRUSTED_PROXIES): HSTS.
	if code, h, _ := get(https + "/"); code != 200 || !strings.Contains(h.Get("Strict-Transport-Security"), "max-age=") {
		t.Errorf("https /: %d, HSTS %q; want 200 with HSTS", code, h.Get("Strict-Transport-Security"))
	}

	// The replica streams from the primary and is read-only.
	ctx := context.Background()
	primary, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:"+strconv.Itoa(clusterPort+432)+"/tutti?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer primary.Close(ctx)
	var streaming int
	if err := primary.QueryRow(ctx, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").Scan(&streaming); err != nil || streaming != 1 {
		t.Errorf("streaming replicas: %d (%v); want 1", streaming, err)
	}
	replica, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:"+strconv.Itoa(clusterPort+433)+"/tutti?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer replica.Close(ctx)
	var recovery bool
	if err := replica.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&recovery); err != nil || !recovery {
		t.Errorf("replica in recovery: %v (%v); want true", recovery, err)
	}

	// Either instance serves the site alone: stop one, then the other.
	for _, stop := range []string{"tutti1", "tutti2"} {
		must("stop", stop)
		for i := range 10 {
			if code, _, _ := get(https + "/roar/"); code != 200 {
				t.Errorf("%s stopped: request %d got %d; want 200 from the other instance", stop, i, code)
			}
		}
		must("start", stop)
		readPIDs()
	}

	must("down")
	downed = true
	for _, pid := range started {
		if running(pid) {
			t.Errorf("after down: pid %d still running", pid)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(state, "run", "*.pid")); len(left) != 0 {
		t.Errorf("after down: pid files left %v", left)
	}
}

// running reports whether pid is a live process (a zombie is not).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
