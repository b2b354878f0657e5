package app_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/db"
)

// serveDemo runs `tutti serve --demo` on dir, calls check with the server's
// URL once it listens, then stops it and wants exit code 0.
func serveDemo(t *testing.T, dir string, check func(url string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	env := app.Env{Stdout: io.Discard, Stderr: pw, Getenv: func(string) string { return "" }, Version: "test",
		Args: []string{"serve", "--demo", "--addr", "127.0.0.1:0", "--data-dir", dir, "--log-level", "warn"}}
	code := make(chan int, 1)
	go func() {
		code <- app.Run(ctx, env)
		pw.Close()
	}()
	urls := make(chan string, 1)
	var output strings.Builder
	drained := make(chan struct{})
	go func() { // read the log to the end, so the server never blocks on it
		defer close(drained)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			output.WriteString(line + "\n")
			if _, rest, ok := strings.Cut(line, " serving "); ok {
				urls <- strings.Fields(rest)[0]
			}
		}
		close(urls)
	}()
	url, ok := <-urls
	if !ok {
		<-drained
		t.Fatalf("serve --demo stopped before listening (exit %d):\n%s", <-code, output.String())
	}
	check(url)
	cancel()
	if c := <-code; c != 0 {
		<-drained
		t.Fatalf("serve --demo: exit %d\n%s", c, output.String())
	}
	<-drained
}

// TestServeDemo: `tutti serve --demo` on a fresh data dir shows roar's
// conversation, meet's poll and creates the demo user; a second start on
// the same data neither fails nor duplicates anything.
func TestServeDemo(t *testing.T) {
	dir := t.TempDir()
	for run := 1; run <= 2; run++ {
		serveDemo(t, dir, func(url string) {
			if code, body, _ := get(t, url+"/roar/"); code != 200 || !strings.Contains(body, "Rehearsal moved to Thursday") {
				t.Errorf("run %d: /roar/: %d; the demo conversation is missing", run, code)
			}
			if code, body, _ := get(t, url+"/music/"); code != 200 || !strings.Contains(body, "Still the best.") || strings.Contains(body, "warm-up") {
				t.Errorf("run %d: /music/: %d; the demo's public songs are missing, or a friends-only one shows", run, code)
			}
			if code, body, _ := get(t, url+"/meet/polls/demo-team-offsite-2026"); code != 200 || !strings.Contains(body, "Team offsite planning") {
				t.Errorf("run %d: the demo poll: %d", run, code)
			}
			if code, body, _ := get(t, url+"/account/u/demo"); code != 200 || !strings.Contains(body, "Demo User") {
				t.Errorf("run %d: the demo user's profile: %d", run, code)
			}
		})
	}
	ctx := context.Background()
	d, err := db.Open(ctx, "", dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, c := range []struct {
		what, query string
		want        int
	}{
		{"demo users", `SELECT count(*) FROM users WHERE username = 'demo'`, 1},
		{"users", `SELECT count(*) FROM users`, 6},             // demo, roar's ada, grace, linus, music's mia and leo
		{"music posts", `SELECT count(*) FROM music_posts`, 5}, // four links and leo's audio
		{"music audio ready", `SELECT count(*) FROM music_posts WHERE kind = 'audio' AND ready = 1 AND peaks IS NOT NULL`, 1},
		{"music friendships", `SELECT count(*) FROM music_friends`, 4}, // mia and leo, demo and mia: each both ways
		{"roars", `SELECT count(*) FROM roars`, 4},
		{"likes", `SELECT count(*) FROM roar_likes`, 2},
		{"polls", `SELECT count(*) FROM meet_polls`, 1},
		{"participants", `SELECT count(*) FROM meet_participants`, 4},
	} {
		var n int
		if err := db.Scan(d.QueryRow(ctx, c.query), &n); err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if n != c.want {
			t.Errorf("%s after two starts: %d; want %d", c.what, n, c.want)
		}
	}
}
