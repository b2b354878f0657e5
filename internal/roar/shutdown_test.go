package roar_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/app"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
)

// TestGracefulStopLosesNoRoar posts from many clients while the server is
// told to stop: every post that was answered as accepted is in the database
// afterwards (the group commit drains its queue before the database closes).
func TestGracefulStopLosesNoRoar(t *testing.T) {
	cfg := config.Default()
	cfg.Addr, cfg.DataDir, cfg.ShutdownTimeout = "127.0.0.1:0", t.TempDir(), 10*time.Second
	cfg.RateLimits = false
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	m, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Listen(); err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- m.Serve(ctx) }()

	var bs []*browser
	for i := range 8 {
		bs = append(bs, user(t, m, fmt.Sprint("g", i)))
	}
	const enough = 20 // accepted posts before the stop, for the test to prove something
	var mu sync.Mutex
	var accepted []string
	haveEnough := make(chan struct{})
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; ; j++ {
				body := fmt.Sprintf("stop test %d-%d", i, j)
				req, _ := http.NewRequest("POST", b.base+"/roar/roars", strings.NewReader(url.Values{"body": {body}}.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				res, err := b.c.Do(req)
				if err != nil {
					return // the server has stopped listening
				}
				res.Body.Close()
				if res.StatusCode != http.StatusSeeOther {
					return
				}
				mu.Lock()
				accepted = append(accepted, body)
				if len(accepted) == enough {
					close(haveEnough)
				}
				mu.Unlock()
			}
		}()
	}
	select { // stop while posts keep coming, once some have been accepted
	case <-haveEnough:
	case <-time.After(30 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("only %d posts accepted in 30 s", len(accepted))
	}
	stop()
	wg.Wait()
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	d, err := db.Open(context.Background(), "", cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rows, err := d.Query(context.Background(), "SELECT body FROM roars")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	stored := map[string]bool{}
	for rows.Next() {
		var b string
		rows.Scan(&b)
		stored[b] = true
	}
	for _, b := range accepted {
		if !stored[b] {
			t.Errorf("accepted roar %q is not in the database", b)
		}
	}
	t.Logf("%d accepted posts, %d stored", len(accepted), len(stored))
}
