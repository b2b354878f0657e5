package roar

import (
	"runtime"
	"testing"
	"time"
)

func TestRoundGapGrowsWithTheStreams(t *testing.T) {
	cores := time.Duration(runtime.GOMAXPROCS(0))
	if g := roundGap(10); g > time.Millisecond {
		t.Errorf("10 streams: gap %v, want at once", g)
	}
	if g, want := roundGap(10000), 500*time.Millisecond/cores; g != want {
		t.Errorf("10,000 streams: gap %v, want %v", g, want)
	}
}

// Events go out in rounds: a quiet hub sends the first at once; what comes
// while a round is due rides along with the next, in order; every client
// gets the same round; a client that stops reading is dropped, not waited for.
func TestHubDeliversInRounds(t *testing.T) {
	h := newHub()
	defer h.close()
	a, b := h.add(), h.add()
	start := time.Now()
	h.broadcast(&Event{Type: "roar", ID: 1})
	r := <-a.ch
	if len(r) != 1 || r[0].e.ID != 1 || time.Since(start) > time.Second {
		t.Fatalf("first round %v after %v", r, time.Since(start))
	}
	if r := <-b.ch; len(r) != 1 || r[0].e.ID != 1 {
		t.Fatalf("b's first round %v", r)
	}
	// With enough streams for rounds one second apart, three events posted
	// meanwhile make one round, in order.
	var idle []*client
	for range streamWrites * runtime.GOMAXPROCS(0) {
		idle = append(idle, h.add())
	}
	for id := int64(2); id <= 4; id++ {
		h.broadcast(&Event{Type: "like", ID: id})
	}
	select {
	case r := <-a.ch:
		if len(r) != 3 || r[0].e.ID != 2 || r[1].e.ID != 3 || r[2].e.ID != 4 {
			t.Errorf("round of %d events, want 2 3 4 in one", len(r))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no round")
	}
	<-b.ch
	for _, c := range idle {
		h.remove(c)
	}
	// b stops reading: once its queue is full, the next round drops it.
	for id := int64(5); id < 5+int64(cap(b.ch))+1; id++ {
		h.broadcast(&Event{Type: "like", ID: id})
		<-a.ch // the round went to b as well
	}
	select { // the round may reach a before b
	case <-b.gone:
	case <-time.After(5 * time.Second):
		t.Error("a client that never reads was not dropped")
	}
}
