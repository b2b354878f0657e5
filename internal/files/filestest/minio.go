// Package filestest starts a real MinIO server for tests of the S3 storage.
//
// The server is the `minio` binary named by TUTTI_TEST_MINIO (install it with
// `go install github.com/minio/minio@VERSION`, as .ci/run does); without the
// variable the test is skipped. Each server listens on 127.0.0.1 on a port
// the kernel picked (from :0), keeps its data in a temporary directory and
// is killed at the test's cleanup.
package filestest

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/testenv"
)

// Credentials of every test server.
const (
	User     = "tutti-test"
	Password = "tutti-test-secret"
)

// MinIO is a running test server.
type MinIO struct {
	Addr string // 127.0.0.1:PORT
}

// URL is the storage URL (TUTTI_STORAGE_URL) of bucket on the server.
func (m *MinIO) URL(bucket string) string {
	return "s3://" + User + ":" + Password + "@" + m.Addr + "/" + bucket + "?secure=false"
}

// Start starts a MinIO server, or skips the test when TUTTI_TEST_MINIO is
// not set.
func Start(t testing.TB) *MinIO {
	t.Helper()
	bin := os.Getenv("TUTTI_TEST_MINIO")
	if bin == "" {
		t.Skip("TUTTI_TEST_MINIO not set (the minio binary: go install github.com/minio/minio@...)")
	}
	dir := t.TempDir()
	var lastErr error
	for try := range 3 { // a port from :0 may be taken before MinIO binds it: another
		addrs := testenv.FreeAddrs(t, 2)
		m, err := start(t, bin, filepath.Join(dir, strconv.Itoa(try)), addrs[0], addrs[1])
		if err == nil {
			return m
		}
		lastErr = err
	}
	t.Fatalf("minio: no server started: %v", lastErr)
	return nil
}

// start runs MinIO on addr (its console, which MINIO_BROWSER=off keeps
// shut, on console) with its files in dir.
func start(t testing.TB, bin, dir, addr, console string) (*MinIO, error) {
	cmd := exec.Command(bin, "server", "--quiet", "--address", addr, "--console-address", console,
		"--certs-dir", filepath.Join(dir, "certs"), filepath.Join(dir, "data"))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+User, "MINIO_ROOT_PASSWORD="+Password,
		"MINIO_BROWSER=off", "MINIO_UPDATE=off", "MINIO_CONFIG_ENV_FILE=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("minio: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return nil, fmt.Errorf("minio exited: %s", out.String())
		case <-time.After(100 * time.Millisecond):
		}
		res, err := client.Get("http://" + addr + "/minio/health/ready")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				t.Cleanup(stop)
				return &MinIO{Addr: addr}, nil
			}
		}
	}
	stop()
	return nil, fmt.Errorf("minio on %s not ready after 30 s: %s", addr, out.String())
}
