package dbtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/testenv"
)

// ReplicaEnv is the variable that turns on the tests that need a streaming
// replica ("1"): they make a PostgreSQL primary and replica of their own.
const ReplicaEnv = "TUTTI_TEST_REPLICA"

// Pair is a throwaway PostgreSQL primary and its streaming replica, made
// with initdb and pg_basebackup -R in a temporary directory, so that the
// machine's own cluster is not touched. Their servers run as the postgres
// user when the test runs as root (PostgreSQL refuses root).
type Pair struct {
	Primary, Replica string // URLs of the "postgres" database on each

	dir        string
	bin        string
	runAs      string // "postgres" when root; "" otherwise
	primaryDir string
	replicaDir string
}

// StartPair starts a primary and its replica on ports of 127.0.0.1 from
// :0, both stopped and removed when the test ends. The test is skipped
// unless TUTTI_TEST_REPLICA=1, and fails if PostgreSQL's programs are
// missing.
func StartPair(t testing.TB) *Pair {
	t.Helper()
	if os.Getenv(ReplicaEnv) != "1" {
		t.Skip(ReplicaEnv + "=1 is not set: no streaming replica test")
	}
	p := &Pair{bin: pgBin(t)}
	dir, err := os.MkdirTemp("", "tutti-replica-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir, p.primaryDir, p.replicaDir = dir, filepath.Join(dir, "primary"), filepath.Join(dir, "replica")
	if u, err := user.Current(); err == nil && u.Uid == "0" {
		p.runAs = "postgres"
		pw, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(pw.Uid)
		gid, _ := strconv.Atoi(pw.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		p.run(t, false, "pg_ctl", "-D", p.replicaDir, "-m", "immediate", "stop")
		p.run(t, false, "pg_ctl", "-D", p.primaryDir, "-m", "immediate", "stop")
		os.RemoveAll(dir)
	})
	p.run(t, true, "initdb", "-D", p.primaryDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
	conf := fmt.Sprintf(`
listen_addresses = '127.0.0.1'
unix_socket_directories = '%s'
wal_level = replica
max_wal_senders = 4
wal_keep_size = '64MB'
hot_standby = on
fsync = off
shared_buffers = '16MB'
max_connections = 40
`, dir)
	appendFile(t, filepath.Join(p.primaryDir, "postgresql.conf"), conf)
	port := p.startOnFreePort(t, p.primaryDir, "primary.log")
	p.run(t, true, "pg_basebackup", "-h", "127.0.0.1", "-p", port, "-U", "postgres",
		"-D", p.replicaDir, "-R", "-X", "stream", "--no-sync")
	p.Primary = "postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable"
	port = p.startOnFreePort(t, p.replicaDir, "replica.log")
	p.Replica = "postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable"
	p.waitReplica(t)
	return p
}

// startOnFreePort starts the server of dataDir on a port from :0 and says
// which. Another process may take the port before the server binds it:
// the start then fails, and is tried again on another. The port stays in
// postgresql.conf (the last "port" line counts) for StartReplica.
func (p *Pair) startOnFreePort(t testing.TB, dataDir, log string) string {
	t.Helper()
	var err error
	for range 3 {
		_, port, _ := net.SplitHostPort(testenv.FreeAddr(t))
		appendFile(t, filepath.Join(dataDir, "postgresql.conf"), "port = "+port+"\n")
		if err = p.try("pg_ctl", "-D", dataDir, "-l", filepath.Join(p.dir, log), "-w", "-t", "30", "start"); err == nil {
			return port
		}
	}
	t.Fatalf("%v", err)
	return ""
}

// StopReplica stops the replica (fast shutdown: its connections are cut).
func (p *Pair) StopReplica(t testing.TB) {
	t.Helper()
	p.run(t, true, "pg_ctl", "-D", p.replicaDir, "-m", "fast", "-w", "stop")
}

// StartReplica starts the replica again, on its port, and waits until it
// takes reads.
func (p *Pair) StartReplica(t testing.TB) {
	t.Helper()
	p.run(t, true, "pg_ctl", "-D", p.replicaDir, "-l", filepath.Join(p.dir, "replica.log"), "-w", "-t", "30", "start")
	p.waitReplica(t)
}

// waitReplica waits until the replica takes reads.
func (p *Pair) waitReplica(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	r, err := db.Open(ctx, p.Replica, "")
	for end := time.Now().Add(30 * time.Second); err != nil && time.Now().Before(end); {
		time.Sleep(100 * time.Millisecond)
		r, err = db.Open(ctx, p.Replica, "")
	}
	if err != nil {
		t.Fatalf("replica: %v", err)
	}
	r.Close()
}

// pgBin finds PostgreSQL's programs: on PATH, or Debian's directory.
func pgBin(t testing.TB) string {
	if path, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil { // Debian links a few into /usr/local/bin
			return filepath.Dir(real)
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	t.Fatal("initdb not found: install PostgreSQL's server programs")
	return ""
}

// run runs one of PostgreSQL's programs, as the postgres user when root;
// the test fails if it does and must.
func (p *Pair) run(t testing.TB, must bool, name string, args ...string) {
	t.Helper()
	if err := p.try(name, args...); err != nil && must {
		t.Fatal(err)
	}
}

// try runs one of PostgreSQL's programs, as the postgres user when root.
func (p *Pair) try(name string, args ...string) error {
	argv := append([]string{filepath.Join(p.bin, name)}, args...)
	if p.runAs != "" {
		argv = append([]string{"runuser", "-u", p.runAs, "--"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return nil
}

func appendFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}
