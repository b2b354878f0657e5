package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/app/apptest"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/meet"
	"github.com/tutti-dev/tutti/internal/roar"
)

// TestShutdownEndsLiveStreams: a graceful stop ends the open live streams of
// every app (roar's timeline, a meet poll's), so that the server stops at
// once instead of waiting out its deadline for them.
func TestShutdownEndsLiveStreams(t *testing.T) {
	cfg := config.Default()
	cfg.Addr, cfg.DataDir, cfg.ShutdownTimeout = "127.0.0.1:0", t.TempDir(), 20*time.Second
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	m, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- m.Serve(ctx) }()

	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.PostForm(m.URL()+"/meet/polls", url.Values{"title": {"Stop"},
		"start_date": {time.Now().AddDate(0, 0, 3).Format("2006-01-02")}, "end_date": {time.Now().AddDate(0, 0, 3).Format("2006-01-02")},
		"day_start": {"09:00"}, "day_end": {"10:00"}, "tz": {"UTC"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	admin := res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.Contains(admin, "/admin/") {
		t.Fatalf("create poll: %d %q", res.StatusCode, admin)
	}
	poll := admin[:strings.Index(admin, "/admin/")]

	ended := make(chan string, 2)
	for _, path := range []string{"/roar/stream", poll + "/stream"} {
		res, err := http.Get(m.URL() + path)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: %v %v", path, res, err)
		}
		go func() {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			ended <- path
		}()
	}
	// Real time: the streams are real TCP connections to the whole server,
	// which testing/synctest cannot fake.
	for apptest.AppOf[*roar.App](t, m).Streams() != 1 || apptest.AppOf[*meet.App](t, m).Streams() != 1 {
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop with live streams open")
	}
	for range 2 {
		<-ended
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("stopping took %v with live streams open", d)
	}
}
