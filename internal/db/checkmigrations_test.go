package db_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/testenv"
)

// TestCheckMigrationsScript runs scripts/check-migrations.sh on a scratch
// repository: it passes while every landed migration is as it landed, and
// fails, naming the file, once one is edited or removed.
func TestCheckMigrationsScript(t *testing.T) {
	testenv.Program(t, "git")
	script, err := filepath.Abs("../../scripts/check-migrations.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	run := func(name string, args ...string) (string, error) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	must := func(name string, args ...string) {
		t.Helper()
		if out, err := run(name, args...); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const first = "internal/x/migrations/sqlite/00001_x.sql"
	must("git", "init", "-q")
	write(first, "-- +goose Up\nCREATE TABLE x (id INTEGER);\n")
	must("git", "add", ".")
	must("git", "commit", "-qm", "x")

	if out, err := run("bash", script); err != nil {
		t.Fatalf("unchanged migrations: %v\n%s", err, out)
	}
	// A new migration, committed or not, is fine.
	write("internal/x/migrations/sqlite/00002_y.sql", "-- +goose Up\nCREATE TABLE y (id INTEGER);\n")
	if out, err := run("bash", script); err != nil {
		t.Fatalf("a new migration: %v\n%s", err, out)
	}
	must("git", "add", ".")
	must("git", "commit", "-qm", "y")

	for _, tc := range []struct {
		name   string
		change func()
		commit bool
	}{
		{"edited in the working tree", func() { write(first, "-- +goose Up\nCREATE TABLE x (id INTEGER, z TEXT);\n") }, false},
		{"edited in a later commit", func() { write(first, "-- +goose Up\nCREATE TABLE x (id BIGINT);\n") }, true},
		{"removed", func() { must("git", "rm", "-q", first) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			must("git", "reset", "-q", "--hard", "HEAD")
			tc.change()
			if tc.commit {
				must("git", "commit", "-qam", tc.name)
				defer must("git", "reset", "-q", "--hard", "HEAD~1")
			}
			out, err := run("bash", script)
			if err == nil {
				t.Fatalf("check passed; want a failure\n%s", out)
			}
			if !strings.Contains(out, first) {
				t.Errorf("output does not name %s:\n%s", first, out)
			}
		})
	}
}

// TestLandedMigrationsUnchanged runs the check on this repository itself.
func TestLandedMigrationsUnchanged(t *testing.T) {
	testenv.Program(t, "git")
	if err := exec.Command("git", "-C", "../..", "rev-parse", "--git-dir").Run(); err != nil {
		testenv.Missing(t, "git-checkout", "../.. is not a git checkout")
	}
	cmd := exec.Command("bash", "../../scripts/check-migrations.sh")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
