package testenv

import (
	"net"
	"os/exec"
	"runtime"
	"testing"
)

func TestRequired(t *testing.T) {
	for _, c := range []struct {
		env, name string
		want      bool
	}{
		{"", "nginx", false},
		{"all", "nginx", true},
		{"git, nginx", "nginx", true},
		{"git,nginx", "nginx-light", false},
		{"git", "nginx", false},
	} {
		t.Setenv(RequireEnv, c.env)
		if got := Required(c.name); got != c.want {
			t.Errorf("%s=%q: Required(%q) = %v; want %v", RequireEnv, c.env, c.name, got, c.want)
		}
	}
}

// A missing program skips the test unless the run requires it: then it
// fails.
func TestProgram(t *testing.T) {
	const absent = "tutti-no-such-program"
	if path, err := exec.LookPath("sh"); err == nil {
		t.Run("found", func(t *testing.T) {
			if got := Program(t, "sh"); got != path {
				t.Errorf("Program(sh) = %q; want %q", got, path)
			}
		})
	}
	for _, c := range []struct{ env, want string }{{"", "skipped"}, {"all", "failed"}, {absent, "failed"}} {
		ft := &fakeT{TB: t}
		t.Setenv(RequireEnv, c.env)
		done := make(chan struct{})
		go func() { // Skip and Fatal end the goroutine, as in a test
			defer close(done)
			Program(ft, absent)
			ft.ended = "returned"
		}()
		<-done
		if ft.ended != c.want {
			t.Errorf("%s=%q: the test %s; want %s (%s)", RequireEnv, c.env, ft.ended, c.want, ft.msg)
		}
	}
}

// fakeT records how a test would have ended.
type fakeT struct {
	testing.TB
	ended, msg string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Skipf(format string, args ...any) {
	f.ended, f.msg = "skipped", format
	runtime.Goexit()
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.ended, f.msg = "failed", format
	runtime.Goexit()
}

// FreeAddrs are different addresses, each free to listen on.
func TestFreeAddrs(t *testing.T) {
	addrs := FreeAddrs(t, 3)
	for i, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			t.Fatalf("listen on FreeAddrs' %s: %v", a, err)
		}
		ln.Close()
		for _, b := range addrs[:i] {
			if a == b {
				t.Errorf("FreeAddrs gave %s twice: %v", a, addrs)
			}
		}
	}
}
