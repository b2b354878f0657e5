// Package testenv is what a test says when it needs something from the
// machine that Go does not bring: a program (nginx, redis-server, git) or
// a service. Missing, the test is skipped with the same words everywhere,
// naming what to install; but a run that asked for it fails instead, so
// that CI never passes by skipping what it meant to test.
//
// A run asks with TUTTI_TEST_REQUIRE: "all" (CI sets it), or the names
// it requires, comma-separated ("nginx,git"). The tests that a variable
// of their own turns on (TUTTI_TEST_BROWSER, TUTTI_TEST_FFMPEG, dbtest's
// TUTTI_TEST_POSTGRES, ...) already fail when it is set and the thing is
// missing; scripts/skipped-tests.sh lists what a run skipped.
package testenv

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// RequireEnv names what a run requires: "all" or a comma-separated list.
const RequireEnv = "TUTTI_TEST_REQUIRE"

// Required reports whether this run requires name (RequireEnv).
func Required(name string) bool {
	list := strings.Split(os.Getenv(RequireEnv), ",")
	for i := range list {
		list[i] = strings.TrimSpace(list[i])
	}
	return slices.Contains(list, "all") || slices.Contains(list, name)
}

// Missing ends t for want of name: a failure when the run requires it, else
// a skip. why says what is missing and how to get it.
func Missing(t testing.TB, name, why string) {
	t.Helper()
	if Required(name) {
		t.Fatalf("needs %s, which %s=%s requires: %s", name, RequireEnv, os.Getenv(RequireEnv), why)
	}
	t.Skipf("needs %s (%s=%s makes this a failure): %s", name, RequireEnv, name, why)
}

// Program returns the path of the program name, found on PATH or at one
// of the paths in also (Debian keeps nginx in /usr/sbin); missing, it
// calls Missing.
func Program(t testing.TB, name string, also ...string) string {
	t.Helper()
	for _, p := range append([]string{name}, also...) {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	Missing(t, name, name+" is not installed (apt-get install "+name+")")
	return ""
}
