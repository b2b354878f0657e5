package load

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"
)

// TestSweepEndsTheLongestIdleFirst: near the file limit the drain's sweep
// ends the people's connections idle since before its cutoff, the longest
// idle first and no more than it asks, and leaves a connection taken again
// meanwhile alone.
func TestSweepEndsTheLongestIdleFirst(t *testing.T) {
	c := &connections{keepAlive: 5 * time.Second}
	now := time.Now()
	type kept struct {
		pc   *personConn
		peer net.Conn
	}
	var all []kept
	for i, idle := range []time.Duration{2, 4, 3, 0} { // seconds idle, a person each
		p := &personal{conns: c}
		c.people.Store(p, struct{}{})
		a, b := net.Pipe()
		t.Cleanup(func() { a.Close(); b.Close() })
		pc := &personConn{Conn: a, owner: p}
		p.release(pc, true)
		p.mu.Lock()
		pc.since = now.Add(-idle*time.Second - time.Duration(i)*time.Millisecond)
		p.mu.Unlock()
		all = append(all, kept{pc, b})
	}
	closed := func(k kept) bool {
		k.peer.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		_, err := k.peer.Read(make([]byte, 1))
		return err != nil && !isTimeout(err)
	}
	if n := c.sweepIdle(now.Add(-time.Second), 2); n != 2 {
		t.Fatalf("swept %d; want 2", n)
	}
	for i, want := range []bool{false, true, true, false} { // idle 4 s and 3 s
		if got := closed(all[i]); got != want {
			t.Errorf("connection idle %d: closed %v; want %v", i, got, want)
		}
	}
	// The one idle 2 s is taken and kept again: its idle time starts anew.
	p := all[0].pc.owner
	p.mu.Lock()
	since := all[0].pc.since
	all[0].pc.since = time.Now()
	p.mu.Unlock()
	if p.drop(all[0].pc, since) {
		t.Error("dropped a connection kept again since the sweep saw it")
	}
	// A cutoff further back than the keep-alive: nobody is visited.
	if n := c.sweepIdle(now.Add(-6*time.Second), 10); n != 0 {
		t.Errorf("swept %d past the keep-alive; want none", n)
	}
}

// TestDialsWaitForAFile: people's connections stay within nine tenths of
// the generator's file limit; a dial past it waits for one to close
// instead of failing, so every request is answered.
func TestDialsWaitForAFile(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(20 * time.Millisecond)
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	c := newConnections(Config{Target: u, Timeout: 5 * time.Second, KeepAlive: time.Second, files: 20, Sources: 1})
	defer c.close()
	most := int64(0) // the generator's open connections at most, looked at every 200 us
	stop := make(chan struct{})
	looked := make(chan struct{})
	go func() {
		defer close(looked)
		for {
			most = max(most, c.drain.Open())
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	const people = 60
	var wg sync.WaitGroup
	errc := make(chan error, people)
	for range people {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rt, leave := c.person()
			defer leave()
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			res, err := rt.RoundTrip(req)
			if err != nil {
				errc <- err
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}()
	}
	wg.Wait()
	close(stop)
	<-looked
	close(errc)
	for err := range errc {
		t.Errorf("a request failed: %v", err)
	}
	if most > 18 || most < 2 {
		t.Errorf("%d connections open at once; want 2 to 18 (nine tenths of 20 files)", most)
	}
}
