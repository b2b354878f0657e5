// Package filestest starts a real MinIO server for tests of the S3 storage.
//
// The server is the `minio` binary named by TUTTI_TEST_MINIO (install it with
// `go install github.com/minio/minio@VERSION`, as .ci/run does); without the
// variable the test is skipped. Each server listens on 127.0.0.1 on a free
// port of 19000-19099, keeps its data in a temporary directory and is killed
// at the test's cleanup.
package filestest

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
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
	return StartPorts(t, 19000, 19100)
}

// StartPorts is Start on a free pair of ports of [low, high).
func StartPorts(t testing.TB, low, high int) *MinIO {
	t.Helper()
	bin := os.Getenv("TUTTI_TEST_MINIO")
	if bin == "" {
		t.Skip("TUTTI_TEST_MINIO not set (the minio binary: go install github.com/minio/minio@...)")
	}
	dir := t.TempDir()
	var lastErr error
	for port := low; port+1 < high; port += 2 {
		if !free(port) || !free(port+1) {
			continue
		}
		m, err := start(t, bin, dir, port)
		if err == nil {
			return m
		}
		lastErr = err
	}
	t.Fatalf("minio: no server started on 127.0.0.1:%d-%d: %v", low, high-1, lastErr)
	return nil
}

func free(port int) bool {
	ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

func start(t testing.TB, bin, dir string, port int) (*MinIO, error) {
	addr := "127.0.0.1:" + strconv.Itoa(port)
	data := filepath.Join(dir, strconv.Itoa(port))
	cmd := exec.Command(bin, "server", "--quiet", "--address", addr,
		"--console-address", "127.0.0.1:"+strconv.Itoa(port+1),
		"--certs-dir", filepath.Join(dir, "certs"), data)
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
