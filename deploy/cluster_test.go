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
	c := upCluster(t, clusterPort, 2)
	for _, name := range []string{"primary", "replica", "redis", "nats1", "nats2", "nats3", "nginx", "tutti1", "tutti2"} {
		if c.pids[name] == 0 || !running(c.pids[name]) {
			t.Fatalf("%s: pid %d not running (pids %v)", name, c.pids[name], c.pids)
		}
	}
	if out := c.must("status"); strings.Contains(out, "fail") || strings.Contains(out, "dead") {
		t.Errorf("status after up:\n%s", out)
	}

	// Idempotent: a second up starts nothing.
	c.must("up", "2")
	for name, pid := range c.pids {
		b, _ := os.ReadFile(filepath.Join(c.state, "run", name+".pid"))
		if got := strings.TrimSpace(string(b)); got != strconv.Itoa(pid) {
			t.Errorf("second up: %s pid %s; want %d unchanged", name, got, pid)
		}
	}

	get := func(u string) (int, http.Header, string) {
		t.Helper()
		res, err := c.client.Get(u)
		if err != nil {
			t.Fatalf("GET %s: %v", u, err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header, string(b)
	}
	if code, _, body := get(c.https + "/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("https /healthz through nginx: %d %q; want 200 ok", code, body)
	}
	if code, h, _ := get("http://127.0.0.1:" + strconv.Itoa(c.port+80) + "/roar/"); code != 301 || h.Get("Location") != c.https+"/roar/" {
		t.Errorf("http /roar/: %d to %q; want 301 to %s/roar/", code, h.Get("Location"), c.https)
	}
	// tutti believes nginx's X-Forwarded-Proto (TUTTI_TRUSTED_PROXIES): HSTS.
	if code, h, _ := get(c.https + "/"); code != 200 || !strings.Contains(h.Get("Strict-Transport-Security"), "max-age=") {
		t.Errorf("https /: %d, HSTS %q; want 200 with HSTS", code, h.Get("Strict-Transport-Security"))
	}

	// A body over the largest tutti takes (64 MiB, the forms with a
	// picture of up to 20 MB) is refused at nginx, with the sentence of
	// tutti's own 413 page rather than nginx's bare one.
	{
		res, err := c.client.Post(c.https+"/account/settings", "application/octet-stream", bytes.NewReader(make([]byte, 65<<20)))
		if err != nil {
			t.Fatalf("POST 65 MiB: %v", err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "The request is too large.") {
			t.Errorf("POST 65 MiB through nginx: %d %.200q; want 413 with the readable page", res.StatusCode, b)
		}
	}

	// The replica streams from the primary and is read-only.
	ctx := context.Background()
	primary := c.connect(ctx, "primary")
	var streaming int
	if err := primary.QueryRow(ctx, "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'").Scan(&streaming); err != nil || streaming != 1 {
		t.Errorf("streaming replicas: %d (%v); want 1", streaming, err)
	}
	replica := c.connect(ctx, "replica")
	var recovery bool
	if err := replica.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&recovery); err != nil || !recovery {
		t.Errorf("replica in recovery: %v (%v); want true", recovery, err)
	}

	// Either instance serves the site alone: stop one, then the other.
	for _, stop := range []string{"tutti1", "tutti2"} {
		c.must("stop", stop)
		for i := range 10 {
			if code, _, _ := get(c.https + "/roar/"); code != 200 {
				t.Errorf("%s stopped: request %d got %d; want 200 from the other instance", stop, i, code)
			}
		}
		c.must("start", stop)
		c.readPIDs()
	}

	c.down()
}

// cluster is a deploy/local-cluster brought up by a test in a fresh state
// directory on its own port base; the test's cleanup takes it down and
// checks that every process it ever had is gone.
type cluster struct {
	t       *testing.T
	state   string         // TUTTI_CLUSTER_DIR
	port    int            // TUTTI_CLUSTER_PORT
	env     []string       // the script's environment
	pids    map[string]int // the latest PID of each component
	started []int          // every PID the cluster ever had
	downed  bool
	https   string       // nginx's https URL
	client  *http.Client // trusts the self-signed certificate, follows no redirect
}

// upCluster builds the binary, runs local-cluster up N on port base port
// with the extra TUTTI_* settings env (they reach the instances) and
// returns the running cluster. It skips unless TUTTI_TEST_CLUSTER=1.
func upCluster(t *testing.T, port, n int, env ...string) *cluster {
	t.Helper()
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
	c := &cluster{t: t, state: state, port: port, pids: map[string]int{}}
	c.env = append(os.Environ(),
		"TUTTI_CLUSTER_DIR="+state,
		"TUTTI_CLUSTER_PORT="+strconv.Itoa(port),
		"TUTTI_BIN="+bin,
	)
	if os.Getenv("TUTTI_CLUSTER_BIN") == "" {
		// A MinIO built by an earlier run of the default cluster is reused.
		c.env = append(c.env, "TUTTI_CLUSTER_BIN=/tmp/tutti-cluster/bin")
	}
	c.env = append(c.env, env...)
	c.https = "https://127.0.0.1:" + strconv.Itoa(port+443)
	c.client = &http.Client{
		Timeout:       10 * time.Second,
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, // the cluster's self-signed certificate
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	t.Cleanup(func() {
		if !c.downed {
			if out, err := c.run("down"); err != nil {
				t.Errorf("down: %v\n%s", err, out)
			}
		}
		if t.Failed() || os.Getenv("TUTTI_KEEP_LOGS") != "" {
			keepLogs(t, state)
		}
		for _, pid := range c.started {
			if running(pid) {
				t.Errorf("pid %d still running after down: killed", pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		os.RemoveAll(state)
	})
	start := time.Now()
	c.must("up", strconv.Itoa(n))
	t.Logf("up in %v", time.Since(start).Round(time.Millisecond))
	c.readPIDs()
	return c
}

// keepLogs copies a failed test's cluster logs (every test's with
// TUTTI_KEEP_LOGS=1) to $TUTTI_ARTIFACTS (or out/artifacts) and prints
// only their last lines, so that the test's own errors stay in sight at the
// end of a long output.
func keepLogs(t *testing.T, state string) {
	dir := os.Getenv("TUTTI_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join("..", "out", "artifacts")
	}
	dir = filepath.Join(dir, t.Name()+"-logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("keeping the logs: %v", err)
	}
	logs, _ := filepath.Glob(filepath.Join(state, "log", "*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		os.WriteFile(filepath.Join(dir, filepath.Base(l)), b, 0o644)
		t.Logf("--- %s (end; whole in %s)\n%s", filepath.Base(l), dir, tail(string(b), 300))
	}
}

// run runs local-cluster with args and returns its output.
func (c *cluster) run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "./local-cluster", args...)
	cmd.Env = c.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// must runs local-cluster with args and fails the test if it fails; after
// a start it reads the new PIDs.
func (c *cluster) must(args ...string) string {
	c.t.Helper()
	out, err := c.run(args...)
	if err != nil {
		c.t.Fatalf("local-cluster %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if len(args) > 0 && (args[0] == "start" || args[0] == "up") {
		c.readPIDs()
	}
	return out
}

// readPIDs records the PID of each component from its pid file.
func (c *cluster) readPIDs() {
	c.t.Helper()
	files, _ := filepath.Glob(filepath.Join(c.state, "run", "*.pid"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			c.t.Fatalf("%s: %v", f, err)
		}
		c.pids[strings.TrimSuffix(filepath.Base(f), ".pid")] = pid
		if !slices.Contains(c.started, pid) {
			c.started = append(c.started, pid)
		}
	}
}

// instanceURL is tutti instance i's own http URL (not through nginx).
func (c *cluster) instanceURL(i int) string {
	return "http://127.0.0.1:" + strconv.Itoa(c.port+100+i)
}

// connect opens a connection to the primary or the replica, closed at the
// end of the test.
func (c *cluster) connect(ctx context.Context, name string) *pgx.Conn {
	c.t.Helper()
	port := c.port + 432
	if name == "replica" {
		port = c.port + 433
	}
	conn, err := pgx.Connect(ctx, "postgres://postgres@127.0.0.1:"+strconv.Itoa(port)+"/tutti?sslmode=disable")
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// down takes the cluster down and checks that no process of it is left.
func (c *cluster) down() {
	c.t.Helper()
	c.must("down")
	c.downed = true
	for _, pid := range c.started {
		if running(pid) {
			c.t.Errorf("after down: pid %d still running", pid)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(c.state, "run", "*.pid")); len(left) != 0 {
		c.t.Errorf("after down: pid files left %v", left)
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
