//go:build unix

package app_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/config"
)

// A tour block is a fenced sh block right after a "<!-- tour: KIND -->"
// line: KIND "serve" is one command that serves until it is stopped, "run"
// commands that end by themselves.
var tourBlock = regexp.MustCompile("(?m)^<!-- tour: (serve|run) -->\n```sh\n((?:[^`].*\n|\n)*?)```")

type tourStep struct{ kind, command string }

// tourSteps returns the README's tour commands in order.
func tourSteps(t *testing.T, readme string) []tourStep {
	t.Helper()
	var steps []tourStep
	for _, m := range tourBlock.FindAllStringSubmatch(readme, -1) {
		var cmds []string
		for line := range strings.SplitSeq(m[2], "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				cmds = append(cmds, line)
			}
		}
		if m[1] == "serve" && len(cmds) != 1 {
			t.Fatalf("README: a tour serve block holds %d commands; want one: %q", len(cmds), m[2])
		}
		for _, c := range cmds {
			steps = append(steps, tourStep{m[1], c})
		}
	}
	if n := strings.Count(readme, "<!-- tour: "); n != len(tourBlock.FindAllString(readme, -1)) {
		t.Fatalf("README: %d tour markers, but only %d are followed by a ```sh block", n, len(tourBlock.FindAllString(readme, -1)))
	}
	if len(steps) == 0 || steps[0].kind != "serve" {
		t.Fatalf("README: the tour must begin with a serve block; found %v", steps)
	}
	return steps
}

// serverLog keeps the lines a server writes, read while it runs.
type serverLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *serverLog) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l.mu.Lock()
		l.lines = append(l.lines, sc.Text())
		l.mu.Unlock()
	}
}

func (l *serverLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestReadmeTour follows the README's tour as a newcomer would: it runs the
// tour's commands word for word from the repository root (the server on a
// free port and a fresh data directory, given through TUTTI_ADDR and
// TUTTI_DATA_DIR, which its commands leave at their defaults), signs in as
// each account the tour names with the password the server's log printed,
// and wants every address the README names on the default address to answer
// 200: as a visitor, or signed in where the page asks to sign in.
func TestReadmeTour(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	steps := tourSteps(t, readme)
	def := config.Default()
	if !strings.Contains(readme, "`./"+def.DataDir+"`") {
		t.Errorf("README never names the default data directory ./%s", def.DataDir)
	}
	origin := "http://" + def.Addr // the README's addresses: the server's default

	deadline := time.Now().Add(10 * time.Minute) // the first `go run` may build the whole program
	if d, ok := t.Deadline(); ok && d.Add(-time.Minute).Before(deadline) {
		deadline = d.Add(-time.Minute)
	}
	data := t.TempDir()
	env := []string{"TUTTI_ADDR=127.0.0.1:0", "TUTTI_DATA_DIR=" + data}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TUTTI_") {
			env = append(env, kv)
		}
	}
	command := func(line string) *exec.Cmd {
		c := exec.Command("sh", "-c", line)
		c.Dir, c.Env = root, env
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so that `go run`'s child is stopped with it
		return c
	}

	// The server: its log is read for its address and the demo passwords.
	var log serverLog
	// exec: Ctrl-C in a terminal reaches the command and not the shell it was
	// typed in.
	serve := command("exec " + steps[0].command)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	serve.Stdout, serve.Stderr = pw, pw
	err = serve.Start()
	pw.Close()
	if err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		log.read(pr) // to the end of the output, so the server never blocks on it
		exited <- serve.Wait()
	}()
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			syscall.Kill(-serve.Process.Pid, syscall.SIGKILL) // the group this test started
			<-exited
		}
	})
	serving := regexp.MustCompile(` serving (http://\S+)`)
	var base string
	for base == "" {
		if m := serving.FindStringSubmatch(log.String()); m != nil {
			base = m[1]
			continue
		}
		select {
		case err := <-exited:
			stopped = true
			t.Fatalf("%q ended before serving (%v):\n%s", steps[0].command, err, log.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q: not serving by the deadline:\n%s", steps[0].command, log.String())
		}
	}

	for _, s := range steps[1:] {
		if s.kind != "run" {
			t.Fatalf("README: a second serve block (%q); the tour has one server", s.command)
		}
		c := command(s.command)
		var out bytes.Buffer // one writer for both: exec copies into it from one goroutine
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		pid := c.Process.Pid
		timer := time.AfterFunc(time.Until(deadline), func() {
			syscall.Kill(-pid, syscall.SIGKILL) // the group this test started
		})
		err := c.Wait()
		if !timer.Stop() {
			t.Fatalf("%q: still running at the deadline\n%s", s.command, out.String())
		}
		if err != nil {
			t.Fatalf("%q: %v\n%s", s.command, err, out.String())
		}
	}

	// The accounts the tour signs in as, with the passwords of the log.
	names := regexp.MustCompile("as `([A-Za-z0-9_.-]+)` with the password").FindAllStringSubmatch(readme, -1)
	if len(names) == 0 {
		t.Fatal("README: no account to sign in as (\"as `NAME` with the password\")")
	}
	var signedIn *http.Client
	for _, n := range names {
		m := regexp.MustCompile(`username=` + regexp.QuoteMeta(n[1]) + ` password=(\S+)`).FindStringSubmatch(log.String())
		if m == nil {
			t.Fatalf("the log prints no password for %s, whom the README signs in as:\n%s", n[1], log.String())
		}
		c := signIn(t, base, n[1], m[1])
		if signedIn == nil {
			signedIn = c
		}
	}

	// Every address the README names on the default address.
	visitor := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	seen := map[string]bool{}
	for _, u := range regexp.MustCompile(regexp.QuoteMeta(origin)+"(/[^\\s)`<>\"]*)?").FindAllStringSubmatch(readme, -1) {
		path := strings.TrimRight(u[1], ".,;:")
		if path == "" {
			path = "/"
		}
		if seen[path] {
			continue
		}
		seen[path] = true
		// A page's first answer may come before the server has seen what the
		// tour's last command wrote (it looks every second): poll a moment.
		var code int
		var who string
		for until := time.Now().Add(10 * time.Second); ; {
			code, who = fetch(t, visitor, base+path), "a visitor"
			if code == http.StatusSeeOther || code == http.StatusFound {
				code, who = fetch(t, signedIn, base+path), "signed in as "+names[0][1]
			}
			if code == http.StatusOK || time.Now().After(until) {
				break
			}
			time.Sleep(200 * time.Millisecond) // polling with a deadline, not waiting for an assertion
		}
		if code != http.StatusOK {
			t.Errorf("README's %s%s: %d to %s; want 200", origin, path, code, who)
		}
	}
	if len(seen) < 5 {
		t.Errorf("README names %d addresses on %s; the tour should send a newcomer to its pages", len(seen), origin)
	}

	// Stopped as the README says: Ctrl-C, which reaches every process of the
	// command (`go run` waits for the server it ran, then exits 1 as an
	// interrupted go command does).
	syscall.Kill(-serve.Process.Pid, syscall.SIGINT)
	select {
	case <-exited:
		stopped = true
	case <-time.After(time.Minute):
		t.Fatalf("the server did not stop within a minute of Ctrl-C:\n%s", log.String())
	}
	for until := time.Now().Add(time.Minute); syscall.Kill(-serve.Process.Pid, 0) == nil; {
		if time.Now().After(until) {
			syscall.Kill(-serve.Process.Pid, syscall.SIGKILL)
			t.Fatalf("a process of %q still runs a minute after Ctrl-C", steps[0].command)
		}
		time.Sleep(50 * time.Millisecond) // polling with a deadline
	}
	if l := log.String(); !strings.Contains(l, `msg="shutting down"`) || strings.Contains(l, "level=ERROR") {
		t.Errorf("the server's log after Ctrl-C: want a clean shutdown and no error:\n%s", l)
	}
}

// signIn signs in on /account/login as a browser does and returns a client
// holding the session; it fails unless the account's settings page then opens.
func signIn(t *testing.T, base, login, password string) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, err := http.NewRequest("POST", base+"/account/login", strings.NewReader(url.Values{"login": {login}, "password": {password}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("signing in as %s: %d; want 303", login, res.StatusCode)
	}
	if code := fetch(t, c, base+"/account/settings"); code != http.StatusOK {
		t.Fatalf("signed in as %s, /account/settings: %d; want 200", login, code)
	}
	return c
}

func fetch(t *testing.T, c *http.Client, u string) int {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}
