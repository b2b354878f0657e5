package load

import (
	"net"
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
