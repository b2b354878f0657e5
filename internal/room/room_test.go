package room_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/redisx/redistest"
	"github.com/tutti-dev/tutti/internal/room"
)

var key = []byte(strings.Repeat("k", 32))

func testingRedis() bool { return os.Getenv("TUTTI_TEST_REDIS") != "" }

func stores(t *testing.T) map[string]func() room.Store {
	m := map[string]func() room.Store{"local": func() room.Store { return room.NewLocal() }}
	if testingRedis() {
		m["redis"] = func() room.Store { return room.NewRedis(redistest.Client(t)) }
	}
	return m
}

// Arrivals past the burst are let in one every 1/rate, in the order they
// came; a room that nobody used for a while lets the next burst in at once.
func TestFirstComeAtTheRate(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			rs, err := room.New(store(), key, 100, 5) // one every 10 ms
			if err != nil {
				t.Fatal(err)
			}
			now := time.UnixMilli(1_800_000_000_000)
			var ats []time.Time
			for u := range 20 {
				tk, err := rs.Join(ctx, "r", int64(u+1), now, time.Time{}, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				ats = append(ats, tk.At)
			}
			for i, at := range ats {
				want := now
				if i >= 5 {
					want = now.Add(time.Duration(i-4) * 10 * time.Millisecond)
				}
				if !at.Equal(want) {
					t.Fatalf("arrival %d let in at +%v, want +%v", i, at.Sub(now), want.Sub(now))
				}
			}
			tk, _ := rs.Join(ctx, "r", 99, now, time.Time{}, time.Time{})
			p, err := rs.Where(ctx, tk, now)
			if err != nil || p.In(now) || p.Ahead != 16 {
				t.Fatalf("21st: %+v %v; want 16 ahead, not in", p, err)
			}
			if p, _ := rs.Where(ctx, tk, tk.At); !p.In(tk.At) {
				t.Fatal("not in at its time")
			}
			later := now.Add(time.Minute)
			tk, _ = rs.Join(ctx, "r", 100, later, time.Time{}, time.Time{})
			if !tk.At.Equal(later) {
				t.Fatalf("after a quiet minute let in at +%v", tk.At.Sub(later))
			}
			other, _ := rs.Join(ctx, "other", 1, now, time.Time{}, time.Time{})
			if !other.At.Equal(now) {
				t.Fatal("rooms share their slots")
			}
		})
	}
}

// Those who came before the opening are let in from it in an order drawn
// at random (the same for a person however often they join), over as long
// as the rate takes; those who come after wait behind all of them.
func TestEarlyCrowdInRandomOrder(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			rs, _ := room.New(store(), key, 1000, 1) // one a millisecond
			open := time.UnixMilli(1_800_000_000_000)
			const n = 2000
			var tickets []room.Ticket
			for u := range n { // they arrive in user order over the minute before
				tk, err := rs.Join(ctx, "r", int64(u+1), open.Add(-time.Minute+time.Duration(u)*time.Millisecond), time.Time{}, open)
				if err != nil || !tk.Early() {
					t.Fatalf("early join: %+v %v", tk, err)
				}
				tickets = append(tickets, tk)
			}
			p, err := rs.Where(ctx, tickets[0], open.Add(-time.Second))
			if err != nil || p.Waiting != n || p.In(open.Add(-time.Second)) {
				t.Fatalf("before the opening: %+v %v", p, err)
			}
			ats := make([]time.Time, n)
			for i, tk := range tickets {
				p, err := rs.Where(ctx, tk, open)
				if err != nil {
					t.Fatal(err)
				}
				if p.At.Before(open) || !p.At.Before(open.Add(n*time.Millisecond)) {
					t.Fatalf("arrival %d let in at +%v", i, p.At.Sub(open))
				}
				ats[i] = p.At
			}
			// Early arrival wins nothing: the first half to come is let in,
			// on average, about when the second half is.
			mean := func(ts []time.Time) time.Duration {
				var s time.Duration
				for _, t := range ts {
					s += t.Sub(open)
				}
				return s / time.Duration(len(ts))
			}
			first, second := mean(ats[:n/2]), mean(ats[n/2:])
			if d := first - second; d < -100*time.Millisecond || d > 100*time.Millisecond {
				t.Fatalf("first half in at +%v on average, second at +%v", first, second)
			}
			if slices.IsSortedFunc(ats, func(a, b time.Time) int { return a.Compare(b) }) {
				t.Fatal("let in in arrival order")
			}
			again, _ := rs.Join(ctx, "r", 7, open.Add(-time.Second), time.Time{}, open)
			p1, _ := rs.Where(ctx, tickets[6], open)
			p2, _ := rs.Where(ctx, again, open)
			if !p1.At.Equal(p2.At) {
				t.Fatalf("joining again draws again: %v then %v", p1.At, p2.At)
			}
			// Joining again (cookies cleared) counts once: the crowd is still n.
			if p, _ := rs.Where(ctx, again, open.Add(-time.Millisecond)); p.Waiting != n {
				t.Fatalf("after a second join %d wait for the opening; want %d", p.Waiting, n)
			}
			late, err := rs.Join(ctx, "r", 5000, open.Add(time.Millisecond), open, time.Time{})
			if err != nil || late.At.Before(open.Add(n*time.Millisecond)) {
				t.Fatalf("a late arrival let in at +%v, before the early crowd", late.At.Sub(open))
			}
		})
	}
}

// A ticket is a pass for its holder only, once its time has come and for
// PassFor after; anything else read as a ticket is refused.
func TestTicketIsSignedAndPersonal(t *testing.T) {
	ctx := context.Background()
	rs, _ := room.New(room.NewLocal(), key, 10, 1)
	now := time.UnixMilli(1_800_000_000_000)
	rs.Join(ctx, "r", 1, now, time.Time{}, time.Time{})
	tk, _ := rs.Join(ctx, "r", 2, now, time.Time{}, time.Time{})
	s := rs.Encode(tk)
	got, ok := rs.Decode(s)
	if !ok || got.Room != "r" || got.User != 2 || !got.At.Equal(tk.At) {
		t.Fatalf("decoded %+v %v from %q", got, ok, s)
	}
	for _, bad := range []string{"", "x", s + "x", strings.Replace(s, ".2.", ".3.", 1), s[:len(s)-2], strings.Repeat("a", 5000)} {
		if _, ok := rs.Decode(bad); ok {
			t.Errorf("accepted %q", bad)
		}
	}
	other, _ := room.New(room.NewLocal(), []byte(strings.Repeat("o", 32)), 10, 1)
	if _, ok := other.Decode(s); ok {
		t.Error("another key's ticket accepted")
	}
	for _, c := range []struct {
		room string
		user int64
		at   time.Time
		want bool
	}{
		{"r", 2, now, false},                       // not yet: 100 ms to go
		{"r", 2, tk.At, true},                      // its time
		{"r", 3, tk.At, false},                     // someone else
		{"s", 2, tk.At, false},                     // another room
		{"r", 2, tk.At.Add(rs.PassFor), true},      // still
		{"r", 2, tk.At.Add(rs.PassFor + 1), false}, // expired
	} {
		p, err := rs.Where(ctx, tk, c.at)
		if ok := err == nil && tk.Room == c.room && tk.User == c.user && rs.Pass(p, c.at); ok != c.want {
			t.Errorf("pass %s/%d at +%v: %v %v", c.room, c.user, c.at.Sub(now), ok, err)
		}
	}
}

// Many joining at once on the same store each get their own slot.
func TestConcurrentJoinsGetDistinctSlots(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			st := store()
			rs, _ := room.New(st, key, 1000, 1)
			now := time.UnixMilli(1_800_000_000_000)
			var mu sync.Mutex
			seen := map[time.Time]bool{}
			var wg sync.WaitGroup
			for u := range 200 {
				wg.Go(func() {
					tk, err := rs.Join(context.Background(), "r", int64(u), now, time.Time{}, time.Time{})
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					if seen[tk.At] {
						t.Errorf("slot +%v given twice", tk.At.Sub(now))
					}
					seen[tk.At] = true
				})
			}
			wg.Wait()
			if len(seen) != 200 {
				t.Fatalf("%d slots for 200", len(seen))
			}
		})
	}
}
