package apptest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/files/filestest"
	"github.com/tutti-dev/tutti/internal/redisx/redistest"
	"github.com/tutti-dev/tutti/internal/testenv"
)

// NginxEnv turns on the cluster run: "1" adds it to Each's runs, "only"
// makes it Each's only run and One's server (the CI's cluster step);
// "later" says that it is a later step of the same CI: Each skips its run
// on PostgreSQL, the cluster's being one.
const NginxEnv = "TUTTI_TEST_NGINX"

func clusterRun() bool   { v := os.Getenv(NginxEnv); return v == "1" || v == "only" }
func clusterOnly() bool  { return os.Getenv(NginxEnv) == "only" }
func clusterLater() bool { return os.Getenv(NginxEnv) == "later" }

// Cluster is two tutti instances on the same configuration (one fresh
// PostgreSQL schema, one Redis prefix, one NATS subject prefix, one upload
// store) behind a real nginx, configured from deploy/nginx/tutti.conf.tmpl:
// round robin over both, keepalive to them, X-Forwarded-For and -Proto,
// which the instances believe (--trusted-proxies 127.0.0.1). It is what
// deploy/local-cluster runs, without TLS (plain http in front) and with one
// PostgreSQL (no replica).
type Cluster struct {
	A, B *app.Main
	URL  string // nginx's, = the instances' --base-url (A.URL() and B.URL())
	dir  string // nginx's prefix: its configuration and logs
}

// StartCluster starts a Cluster, stopped at cleanup. It needs
// TUTTI_TEST_POSTGRES and TUTTI_TEST_REDIS (it fails without them: the
// cluster run was asked for) and nginx. NATS is TUTTI_TEST_NATS when set,
// else a NATS server in the test process listening on loopback; uploads go
// to a MinIO (TUTTI_TEST_MINIO) when set, else to the data directory the two
// instances share (a shared volume), which also holds the mail outbox.
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	pg, ru := os.Getenv(dbtest.Env), os.Getenv("TUTTI_TEST_REDIS")
	if pg == "" || ru == "" {
		t.Fatalf("%s=%s needs %s and TUTTI_TEST_REDIS", NginxEnv, os.Getenv(NginxEnv), dbtest.Env)
	}
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			t.Fatalf("%s: nginx is not installed", NginxEnv)
		}
	}
	natsURL := os.Getenv("TUTTI_TEST_NATS")
	if natsURL == "" {
		natsURL = startNATS(t)
	}
	storage := ""
	if os.Getenv("TUTTI_TEST_MINIO") != "" {
		storage = filestest.Start(t).URL("tutti-uploads")
	}
	schema, prefix := dbtest.FreshSchema(t, pg), redistest.Prefix(t, ru)
	// nginx's port, from :0: the instances are told its URL before nginx
	// binds it (another process taking it meanwhile fails the test).
	addr := testenv.FreeAddr(t)
	c := &Cluster{URL: "http://" + addr, dir: t.TempDir()}
	dataDir := t.TempDir()
	natsPrefix := "t" + randomHex(6) + "."
	set := func(cfg *config.Config) {
		cfg.DatabaseURL, cfg.RedisURL, cfg.RedisPrefix = schema, ru, prefix
		cfg.NATSURL, cfg.NATSPrefix = natsURL, natsPrefix
		cfg.StorageURL, cfg.DataDir = storage, dataDir
		cfg.BaseURL, cfg.TrustedProxies = c.URL, "127.0.0.1"
	}
	// Both on one configuration; B starts once A has migrated the schema.
	c.A = StartWith(t, set)
	c.B = StartWith(t, set)
	c.startNginx(t, bin, addr)
	clusters.Store(c.A, c)
	t.Cleanup(func() { clusters.Delete(c.A) })
	return c
}

// clusters maps a running Cluster's instance A to it, for Instances.
var clusters sync.Map

// startNATS runs a NATS server with JetStream inside the test process,
// listening on a free loopback port, for the cluster's two instances.
func startNATS(t testing.TB) string {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT,
		JetStream: true, StoreDir: t.TempDir(), NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatalf("nats: %v", err)
	}
	srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		srv.Shutdown()
		t.Fatal("nats: not ready")
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	return srv.ClientURL()
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// startNginx writes the configuration (the repo's template around a main
// context of the test's own), exports the static files for nginx to serve,
// starts nginx on addr and waits until it answers /healthz from tutti.
func (c *Cluster) startNginx(t testing.TB, bin, addr string) {
	t.Helper()
	static := filepath.Join(c.dir, "static")
	if _, err := app.ExportAssets(static); err != nil {
		t.Fatalf("export assets: %v", err)
	}
	site, err := renderNginx(addr, c.URL, static, filepath.Join(c.dir, "redirect.sock"), c.A.Addr(), c.B.Addr())
	if err != nil {
		t.Fatal(err)
	}
	// One process (master_process off): as root, nginx's workers would run
	// as nobody and could not read the test's private temporary directory.
	main := fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 8192; } # two a proxied request: the race test has 2,000 people with their own
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	access_log %[1]s/access.log;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	include %[1]s/tutti.conf;
}
`, c.dir)
	for name, text := range map[string]string{"tutti.conf": site, "nginx.conf": main} {
		if err := os.WriteFile(filepath.Join(c.dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-p", c.dir, "-e", filepath.Join(c.dir, "error.log"), "-c", filepath.Join(c.dir, "nginx.conf"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("nginx: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			c.logTail(t)
		}
	})
	client := &http.Client{Timeout: time.Second}
	for range 200 {
		select {
		case <-exited:
			c.logTail(t)
			t.Fatalf("nginx on %s exited: %s", addr, out.String())
		case <-time.After(25 * time.Millisecond):
		}
		if res, err := client.Get(c.URL + "/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
	}
	c.logTail(t)
	t.Fatalf("nginx on %s: no 200 from /healthz within 5 s", addr)
}

// logTail logs the end of nginx's error log (a failed test's upstream
// errors are there).
func (c *Cluster) logTail(t testing.TB) {
	b, _ := os.ReadFile(filepath.Join(c.dir, "error.log"))
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	if len(b) > 0 {
		t.Logf("nginx error.log (end):\n%s", b)
	}
}

// renderNginx fills in deploy/nginx/tutti.conf.tmpl as deploy/local-cluster
// does, except that the site is served over plain http on addr (the TLS
// listener becomes a plain one, the ssl_ directives go) and the http
// redirect server listens on a unix socket, out of the way.
func renderNginx(addr, public, static, redirectSock string, upstreams ...string) (string, error) {
	_, here, _, _ := runtime.Caller(0)
	tmpl := filepath.Join(filepath.Dir(here), "..", "..", "..", "deploy", "nginx", "tutti.conf.tmpl")
	b, err := os.ReadFile(tmpl)
	if err != nil {
		return "", fmt.Errorf("nginx template: %w", err)
	}
	const tls = "listen @@HTTPS_LISTEN@@ ssl http2"
	if !bytes.Contains(b, []byte(tls)) {
		return "", fmt.Errorf("%s: no %q to serve over plain http", tmpl, tls)
	}
	var servers strings.Builder
	for _, u := range upstreams {
		fmt.Fprintf(&servers, "    server %s max_fails=2 fail_timeout=3s;\n", u)
	}
	var out strings.Builder
	for line := range strings.Lines(string(b)) {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "#"), strings.HasPrefix(trimmed, "ssl_"):
			continue
		case trimmed == "@@SERVERS@@":
			out.WriteString(servers.String())
			continue
		}
		line = strings.ReplaceAll(line, tls, "listen "+addr)
		line = strings.NewReplacer("@@HTTP_LISTEN@@", "unix:"+redirectSock, "@@SERVER_NAME@@", "127.0.0.1 localhost",
			"@@PUBLIC_URL@@", public, "@@STATIC_DIR@@", static).Replace(line)
		out.WriteString(line)
	}
	if strings.Contains(out.String(), "@@") {
		return "", fmt.Errorf("%s: a placeholder the harness does not know", tmpl)
	}
	return out.String(), nil
}
