package mail_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/redisx/redistest"
	"github.com/tutti-dev/tutti/internal/testenv"
	"github.com/tutti-dev/tutti/internal/web"
)

func newQueue(t *testing.T) (*db.DB, *jobs.Queue) {
	t.Helper()
	d := dbtest.Open(t, "", jobs.Migrations)
	return d, jobs.New(d, jobs.Options{})
}

// enqueue puts msgs in the outbox in one transaction.
func enqueue(t *testing.T, d *db.DB, m *mail.Mailer, msgs ...mail.Message) {
	t.Helper()
	ctx := context.Background()
	if err := d.WithTx(ctx, func(tx *db.Tx) error {
		for _, msg := range msgs {
			if err := m.Enqueue(ctx, tx, msg); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func runAll(t *testing.T, q *jobs.Queue) {
	t.Helper()
	for {
		ran, err := q.RunOne(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if !ran {
			break
		}
	}
	if c, _ := q.Counts(context.Background()); c != (jobs.Counts{}) {
		t.Fatalf("jobs left: %+v", c)
	}
}

func TestWithoutSMTPMailIsWrittenAsEMLFiles(t *testing.T) {
	d, q := newQueue(t)
	dir := t.TempDir()
	m, err := mail.New(mail.Config{Dir: dir, From: "tutti <noreply@example.org>"}, q)
	if err != nil {
		t.Fatal(err)
	}
	link := "https://tutti.example.org/account/reset/" + strings.Repeat("Ab3_", 12) // longer than a QP line
	enqueue(t, d, m, mail.Message{To: "zoé@example.com", Subject: "Réinitialiser", Text: "Open this link:\n\n" + link + "\n"},
		mail.Message{To: "b@example.com", Subject: "second", Text: "hi"},
		mail.Message{To: "Rehearsal <r1-7@rehearsal.tutti.INVALID>", Subject: "dropped", Text: "no such address"})
	runAll(t, q)
	list, err := m.List(10)
	if err != nil || len(list) != 2 {
		t.Fatalf("List: %v, %v; want 2 messages (the .invalid one dropped)", list, err)
	}
	var got *mail.Stored
	for _, s := range list {
		if s.Subject == "Réinitialiser" {
			got, err = m.Read(s.Name)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if got == nil || got.To != "<zoé@example.com>" || !strings.Contains(got.From, "noreply@example.org") {
		t.Fatalf("stored message %+v; want the reset mail to zoé from noreply", got)
	}
	if !strings.Contains(got.Text, link) {
		t.Errorf("body %q does not hold the link %q whole", got.Text, link)
	}
	for _, bad := range []string{"../x.eml", ".hidden.eml", "x.txt"} {
		if _, err := m.Read(bad); err == nil {
			t.Errorf("Read(%q) succeeded; want not found", bad)
		}
	}
}

func TestEnqueueRefusesABadRecipientAndRollsBackWithTheTx(t *testing.T) {
	d, q := newQueue(t)
	m, _ := mail.New(mail.Config{Dir: t.TempDir()}, q)
	ctx := context.Background()
	err := d.WithTx(ctx, func(tx *db.Tx) error { return m.Enqueue(ctx, tx, mail.Message{To: "not an address"}) })
	if err == nil {
		t.Error("enqueued mail to a bad address")
	}
	if c, _ := q.Counts(ctx); c != (jobs.Counts{}) {
		t.Errorf("jobs %+v; want none", c)
	}
}

func TestParseSMTPURL(t *testing.T) {
	for _, s := range []string{"smtp://u:p@mail.example.org:2525", "smtps://mail.example.org", "smtp://127.0.0.1:25"} {
		if _, _, err := mail.ParseSMTPURL(s); err != nil {
			t.Errorf("ParseSMTPURL(%q): %v", s, err)
		}
	}
	for _, s := range []string{"http://x", "smtp://", "mail.example.org:25", "smtp://h:port"} {
		if _, _, err := mail.ParseSMTPURL(s); err == nil {
			t.Errorf("ParseSMTPURL(%q) accepted", s)
		}
	}
}

// smtpServer starts Debian's aiosmtpd (python3-aiosmtpd) on a free port
// with its Debugging handler, which prints every message it receives.
func smtpServer(t *testing.T) (addr string, received func() string) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-c", "import aiosmtpd").Run(); err != nil {
		testenv.Missing(t, "python3-aiosmtpd", "the real SMTP server: apt-get install python3-aiosmtpd")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = ln.Addr().String()
	ln.Close()
	cmd := exec.Command("/usr/bin/python3", "-m", "aiosmtpd", "-n", "-l", addr, "-c", "aiosmtpd.handlers.Debugging")
	cmd.Env = append(cmd.Environ(), "PYTHONUNBUFFERED=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var mu sync.Mutex
	var buf strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			mu.Lock()
			buf.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
	}()
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("aiosmtpd did not listen on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return addr, func() string { mu.Lock(); defer mu.Unlock(); return buf.String() }
}

// The sending rate is bounded by golang.org/x/time/rate, whose waits are
// Go timers: in a synctest bubble (the .eml files, no network) they are
// exact. 10 mails at 5/s with bursts of 5: five at once, then one every
// 200 ms, the last a second after the first.
func TestSendingRateIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d, q := newQueue(t)
		m, err := mail.New(mail.Config{Dir: t.TempDir(), PerSecond: 5}, q)
		if err != nil {
			t.Fatal(err)
		}
		var msgs []mail.Message
		for i := range 10 {
			msgs = append(msgs, mail.Message{To: fmt.Sprintf("user%d@example.com", i), Subject: fmt.Sprintf("hello %d", i), Text: "hi"})
		}
		enqueue(t, d, m, msgs...)
		start := time.Now()
		runAll(t, q)
		if took := time.Since(start); took != time.Second {
			t.Errorf("10 mails at 5/s took %v; want 1s", took)
		}
		list, err := m.List(20)
		if err != nil || len(list) != 10 {
			t.Fatalf("List: %d messages, %v; want 10", len(list), err)
		}
		// Each file is named after the time it was written.
		var at []time.Duration
		for _, s := range list {
			ts, err := time.Parse("20060102T150405.000", s.Name[:19])
			if err != nil {
				t.Fatalf("file name %q: %v", s.Name, err)
			}
			at = append(at, ts.Sub(start.UTC()))
		}
		slices.Sort(at)
		want := []time.Duration{0, 0, 0, 0, 0, 200 * time.Millisecond, 400 * time.Millisecond, 600 * time.Millisecond, 800 * time.Millisecond, time.Second}
		if !slices.Equal(at, want) {
			t.Errorf("sent at %v after the start; want %v", at, want)
		}
	})
}

// This test talks to a real SMTP server in another process over TCP, so it
// keeps real time: a goroutine waiting on a socket is not "durably blocked"
// and the server is outside any bubble, so synctest cannot run it (the
// exact rate is TestSendingRateIsBounded's).
func TestSendsThroughARealSMTPServerAtABoundedRate(t *testing.T) {
	addr, received := smtpServer(t)
	d, q := newQueue(t)
	m, err := mail.New(mail.Config{SMTPURL: "smtp://" + addr, From: "noreply@example.org", PerSecond: 5}, q)
	if err != nil {
		t.Fatal(err)
	}
	if !m.SMTP() {
		t.Fatal("SMTP() false with an smtp-url")
	}
	var msgs []mail.Message
	for i := range 10 {
		msgs = append(msgs, mail.Message{To: fmt.Sprintf("user%d@example.com", i), Subject: fmt.Sprintf("hello %d", i), Text: fmt.Sprintf("marker-%d", i)})
	}
	enqueue(t, d, m, msgs...)
	start := time.Now()
	runAll(t, q)
	took := time.Since(start)
	// 5 a second with bursts of 5: the last 5 wait 200 ms each.
	if took < 900*time.Millisecond {
		t.Errorf("10 mails at 5/s took %v; want at least ~1 s", took)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := received()
		missing := ""
		for i := range 10 {
			if !strings.Contains(got, fmt.Sprintf("marker-%d", i)) || !strings.Contains(got, fmt.Sprintf("user%d@example.com", i)) {
				missing = fmt.Sprint(i)
			}
		}
		if missing == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the SMTP server did not receive message %s; it printed:\n%s", missing, got)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSMTPDownRetriesLater(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close() // nothing listens there
	d, q := newQueue(t)
	m, _ := mail.New(mail.Config{SMTPURL: "smtp://" + addr}, q)
	enqueue(t, d, m, mail.Message{To: "a@example.com", Subject: "s", Text: "t"})
	q.RunOne(context.Background())
	list, _ := q.List(context.Background(), jobs.Ready, 1)
	if len(list) != 1 || list[0].Attempts != 1 || list[0].LastError == "" {
		t.Fatalf("after a refused connection: %+v; want the mail ready for a retry with its error", list)
	}
}

// In cluster mode the sending rate is the site's, not each instance's: two
// instances' Mailers share it through Redis. Ten mails at 5/s (bursts of
// 5) sent alternately through the two take a second, as through one; with
// a rate of each's own they would all go at once.
func TestSendingRateIsSharedByInstances(t *testing.T) {
	c := redistest.Client(t)
	var ms []*mail.Mailer
	for range 2 {
		_, q := newQueue(t)
		m, err := mail.New(mail.Config{Dir: t.TempDir(), PerSecond: 5, Limiter: ratelimit.RedisMaker(c)}, q)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	start := time.Now()
	for i := range 10 {
		if err := ms[i%2].Send(context.Background(), mail.Message{To: fmt.Sprintf("user%d@example.com", i), Subject: "hello", Text: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 900*time.Millisecond || took > 3*time.Second {
		t.Errorf("10 mails at 5/s through two instances took %v; want about 1 s", took)
	}
	if c.Failures() != 0 {
		t.Errorf("%d Redis failures; want 0", c.Failures())
	}
}

// Links in mail start with --base-url when set, else with the origin kept
// with the flow, else the request's, else the address the site answers
// on: never a bare path.
func TestBaseOfLinks(t *testing.T) {
	_, q := newQueue(t)
	site := func() string { return "http://127.0.0.1:8080" }
	req := web.ContextWithOrigin(context.Background(), "https://req.example")
	for _, c := range []struct {
		name, baseURL, flow string
		ctx                 context.Context
		site                func() string
		want                string
	}{
		{"--base-url wins", "https://race.example/", "http://flow.example", req, site, "https://race.example"},
		{"the flow's origin", "", "https://flow.example/", req, site, "https://flow.example"},
		{"the request's", "", "", req, site, "https://req.example"},
		{"the site's address", "", "", context.Background(), site, "http://127.0.0.1:8080"},
		{"nothing known", "", "", context.Background(), nil, "http://localhost"},
	} {
		m, err := mail.New(mail.Config{Dir: t.TempDir(), BaseURL: c.baseURL, Site: c.site}, q)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Link(c.ctx, c.flow, "/race/x"); got != c.want+"/race/x" {
			t.Errorf("%s: got %s; want %s/race/x", c.name, got, c.want)
		}
	}
}

// EnqueueMany puts every message in the outbox, or none when one
// recipient is not an address.
func TestEnqueueManyAllOrNone(t *testing.T) {
	d, q := newQueue(t)
	m, _ := mail.New(mail.Config{Dir: t.TempDir()}, q)
	ctx := context.Background()
	msgs := []mail.Message{{To: "a@example.com", Subject: "one", Text: "1"}, {To: "not an address", Subject: "two"}}
	if err := d.WithTx(ctx, func(tx *db.Tx) error { return m.EnqueueMany(ctx, tx, msgs) }); err == nil {
		t.Error("enqueued mail to a bad address")
	}
	if c, _ := q.Counts(ctx); c != (jobs.Counts{}) {
		t.Errorf("jobs %+v; want none", c)
	}
	msgs[1].To = "b@example.com"
	if err := d.WithTx(ctx, func(tx *db.Tx) error { return m.EnqueueMany(ctx, tx, msgs) }); err != nil {
		t.Fatal(err)
	}
	runAll(t, q)
	if list, err := m.List(10); err != nil || len(list) != 2 {
		t.Errorf("stored %v, %v; want both messages", list, err)
	}
}
