package pubsub

import (
	"context"
	"log/slog"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestEmbeddedPublishSubscribe(t *testing.T) {
	b, err := Open("", t.TempDir(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Embedded() {
		t.Fatal("not embedded")
	}
	got := make(chan string, 2)
	stop, err := b.Subscribe("meet.poll.*", func(subject string, data []byte) { got <- subject + "=" + string(data) })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := b.Publish("meet.poll.abc", []byte("v2")); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		if m != "meet.poll.abc=v2" {
			t.Errorf("got %q; want meet.poll.abc=v2", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no message")
	}
	if err := b.Ping(context.Background()); err != nil {
		t.Errorf("ping: %v", err)
	}
}

// A JetStream message written before a restart is still there after it: the
// store lives in the data directory.
func TestJetStreamSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	b, err := Open("", dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.JetStream().CreateStream(ctx, jetstream.StreamConfig{Name: "WORK", Subjects: []string{"work.>"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.JetStream().Publish(ctx, "work.mail", []byte("hello")); err != nil {
		t.Fatal(err)
	}
	b.Close()

	b, err = Open("", dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	st, err := b.JetStream().Stream(ctx, "WORK")
	if err != nil {
		t.Fatal(err)
	}
	msg, err := st.GetMsg(ctx, 1)
	if err != nil || string(msg.Data) != "hello" {
		t.Errorf("after restart: %v %v; want hello", msg, err)
	}
}

// TestExternalCluster runs against a real NATS server when TUTTI_TEST_NATS
// holds its URL (CI sets it): the cluster-mode path of the same Bus.
func TestExternalCluster(t *testing.T) {
	url := os.Getenv("TUTTI_TEST_NATS")
	if url == "" {
		t.Skip("set TUTTI_TEST_NATS=nats://127.0.0.1:4222 to test against a NATS server")
	}
	b, err := Open(url, "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Embedded() {
		t.Fatal("embedded with a URL given")
	}
	got := make(chan []byte, 1)
	subject := "tutti.test." + strconv.FormatInt(time.Now().UnixNano(), 36)
	stop, err := b.Subscribe(subject, func(_ string, data []byte) { got <- data })
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	b.Publish(subject, []byte("x"))
	select {
	case d := <-got:
		if string(d) != "x" {
			t.Errorf("got %q", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no message from the external server")
	}
}

// Two sites on one NATS server, each with its own prefix, do not hear each
// other; a bus without a prefix hears the raw subject; subscribers see the
// subject without the prefix.
func TestPrefixIsolates(t *testing.T) {
	url := os.Getenv("TUTTI_TEST_NATS")
	if url == "" {
		t.Skip("set TUTTI_TEST_NATS=nats://127.0.0.1:4222 to test against a NATS server")
	}
	log := slog.New(slog.DiscardHandler)
	uniq := strconv.FormatInt(time.Now().UnixNano(), 36)
	open := func(prefix string) *Bus {
		b, err := OpenPrefix(url, prefix, "", log)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	site1, site2, raw := open("s1"+uniq+"."), open("s2"+uniq+"."), open("")
	got1, got2, gotRaw := make(chan string, 4), make(chan string, 4), make(chan string, 4)
	for _, s := range []struct {
		b       *Bus
		subject string
		got     chan string
	}{{site1, "roar.events", got1}, {site2, "roar.events", got2}, {raw, "s1" + uniq + ".roar.events", gotRaw}} {
		stop, err := s.b.Subscribe(s.subject, func(subject string, data []byte) { s.got <- subject + "=" + string(data) })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		if err := s.b.nc.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	if err := site1.Publish("roar.events", []byte("one")); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]chan string{"site1": got1, "raw": gotRaw} {
		want := "roar.events=one"
		if name == "raw" {
			want = "s1" + uniq + ".roar.events=one"
		}
		select {
		case m := <-c:
			if m != want {
				t.Errorf("%s got %q; want %q", name, m, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no message", name)
		}
	}
	select {
	case m := <-got2:
		t.Errorf("site2 heard site1's message %q", m)
	case <-time.After(200 * time.Millisecond):
	}
}
