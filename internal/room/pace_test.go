package room_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/redisx/redistest"
	"github.com/tutti-dev/tutti/internal/room"
)

// health is a Health whose level the test sets.
type health struct{ level, floor float64 }

func (h *health) Level(time.Time) float64 { return h.level }
func (h *health) Min() float64            { return h.floor }

func near(a, b time.Time) bool { d := a.Sub(b); return d > -time.Millisecond && d < time.Millisecond }

// When the site slows, the whole line slows in order, tickets already
// issued included, and the wait each place shows follows the pace; never
// later than the floor allows; when the site recovers, so does the pace,
// and an empty line lets the next arrival in at once.
func TestLineFollowsThePace(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			h := &health{level: 1, floor: 0.1}
			rs, _ := room.New(store(), key, 10, 1) // one every 100 ms
			rs.Health = h
			now := time.UnixMilli(1_800_000_000_000)
			var tickets []room.Ticket
			for u := range 11 {
				tk, p, err := rs.Enter(ctx, "r", int64(u+1), now, time.Time{}, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				if want := now.Add(time.Duration(u) * 100 * time.Millisecond); !near(p.At, want) {
					t.Fatalf("arrival %d at +%v; want +%v", u, p.At.Sub(now), want.Sub(now))
				}
				tickets = append(tickets, tk)
			}
			last := tickets[10] // 1 s to go at the full rate
			h.level = 0.5
			p, err := rs.Where(ctx, last, now)
			if err != nil || !near(p.At, now.Add(2*time.Second)) || p.Ahead != 10 || p.Level != 0.5 {
				t.Fatalf("at half pace: %+v %v; want in at +2s, 10 ahead", p, err)
			}
			if !near(p.Latest, now.Add(10*time.Second)) {
				t.Fatalf("latest +%v; want +10s (the floor's pace)", p.Latest.Sub(now))
			}
			// 1 s later, half the line has gone in, in order.
			now = now.Add(time.Second)
			for i, tk := range tickets {
				p, err := rs.Where(ctx, tk, now)
				if err != nil {
					t.Fatal(err)
				}
				if in := p.In(now); in != (i <= 5) {
					t.Fatalf("after 1 s at half pace, ticket %d in: %v (%+v)", i, in, p)
				}
			}
			h.level = 0.01 // under the floor: the floor
			p, _ = rs.Where(ctx, last, now)
			if p.Level != 0.1 || !near(p.At, now.Add(5*time.Second)) {
				t.Fatalf("at the floor: %+v; want level 0.1, in at +5s", p)
			}
			now = now.Add(time.Second)
			h.level = 1
			p, _ = rs.Where(ctx, last, now)
			if !near(p.At, now.Add(400*time.Millisecond)) {
				t.Fatalf("recovered: in at +%v; want +400ms", p.At.Sub(now))
			}
			now = now.Add(400 * time.Millisecond)
			if p, _ := rs.Where(ctx, last, now); !rs.Pass(p, now) {
				t.Fatalf("last not in at its time: %+v", p)
			}
			// The line is empty: the next arrival is let in at once.
			now = now.Add(time.Second)
			tk, p, err := rs.Enter(ctx, "r", 99, now, time.Time{}, time.Time{})
			if err != nil || !rs.Pass(p, now) {
				t.Fatalf("empty line: %+v %+v %v; want in at once", tk, p, err)
			}
			_, p, _ = rs.Enter(ctx, "r", 100, now, time.Time{}, time.Time{})
			if !near(p.At, now.Add(100*time.Millisecond)) {
				t.Fatalf("after the catch-up: in at +%v; want +100ms", p.At.Sub(now))
			}
		})
	}
}

// In the cluster the room runs at the mean of the instances' levels, and
// an instance that stopped publishing stops counting.
func TestInstancesShareThePace(t *testing.T) {
	c := redistest.Client(t) // skips without TUTTI_TEST_REDIS, as the others
	ctx := context.Background()
	slow, fast := &health{level: 0.5, floor: 0.1}, &health{level: 1, floor: 0.1}
	a, _ := room.New(room.NewRedis(c), key, 10, 1)
	b, _ := room.New(room.NewRedis(c), key, 10, 1)
	a.Health, b.Health = slow, fast
	now := time.UnixMilli(1_800_000_000_000)
	var last room.Ticket
	for u := range 11 {
		rs := []*room.Rooms{a, b}[u%2]
		tk, err := rs.Join(ctx, "r", int64(u+1), now, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		last = tk
	}
	pa, _ := a.Where(ctx, last, now)
	pb, _ := b.Where(ctx, last, now)
	if pa.Level != 0.75 || pb.Level != 0.75 {
		t.Fatalf("levels %v and %v; want the mean 0.75", pa.Level, pb.Level)
	}
	if !near(pb.At, now.Add(time.Second*4/3)) || !near(pa.At, pb.At) {
		t.Fatalf("in at +%v and +%v; want +1.33s on both", pa.At.Sub(now), pb.At.Sub(now))
	}
	// a stops publishing: after its TTL only b counts.
	later := now.Add(room.LevelTTL + time.Second)
	if p, _ := b.Where(ctx, last, later); p.Level != 1 {
		t.Fatalf("level %v after a went quiet; want 1", p.Level)
	}
}

// A ticket let in stays let in: requests read the room's clock in any
// order (each took its now before the store answered, on either instance
// in the cluster), and one whose now is older than the last read's must
// not turn the clock back and send someone let in back to the line.
func TestClockNeverRunsBack(t *testing.T) {
	for name, store := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st := store()
			a, _ := room.New(st, key, 10, 1) // one every 100 ms
			b, _ := room.New(st, key, 10, 1) // another instance on the same store
			now := time.UnixMilli(1_800_000_000_000)
			var tickets []room.Ticket
			for u := range 5 {
				tk, err := []*room.Rooms{a, b}[u%2].Join(ctx, "r", int64(u+1), now, time.Time{}, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				tickets = append(tickets, tk)
			}
			third := tickets[2] // in at +200ms
			at := now.Add(250 * time.Millisecond)
			if p, err := a.Where(ctx, third, at); err != nil || !a.Pass(p, at) {
				t.Fatalf("third at +250ms: %+v %v; want in", p, err)
			}
			// A request on b that took its now at +120ms is answered only now;
			// an arrival at +120ms joins the line (and catches nothing up).
			late := now.Add(120 * time.Millisecond)
			if _, err := b.Where(ctx, tickets[4], late); err != nil {
				t.Fatal(err)
			}
			if _, err := b.Join(ctx, "r", 99, late, time.Time{}, time.Time{}); err != nil {
				t.Fatal(err)
			}
			for _, rs := range []*room.Rooms{a, b} {
				if p, err := rs.Where(ctx, third, at); err != nil || !rs.Pass(p, at) {
					t.Fatalf("third at +250ms after an older read: %+v %v; want still in", p, err)
				}
			}
		})
	}
}

// A ticket admitted (a pass) lets its holder in for PassFor from its turn
// whatever another room's clock on the same key says (another instance
// while Redis cannot be asked: its own clock, here at the floor and
// started earlier), survives its encoding, and is signed like any ticket.
func TestPassOutlivesTheClock(t *testing.T) {
	ctx := context.Background()
	now := time.UnixMilli(1_800_000_000_000)
	a, _ := room.New(room.NewLocal(), key, 10, 1)
	tk, p, err := a.Enter(ctx, "r", 1, now, time.Time{}, time.Time{})
	if err != nil || !a.Pass(p, now) {
		t.Fatalf("first in: %+v %v", p, err)
	}
	pass := a.Admit(tk, p)
	if !pass.Admitted() || !pass.In.Equal(now) || a.Admit(pass, room.Place{At: now.Add(time.Hour)}).In != pass.In {
		t.Fatalf("pass %+v; want in at now, kept", pass)
	}
	b, _ := room.New(room.NewLocal(), key, 10, 1)
	b.Health = &health{level: 0.1, floor: 0.1}
	b.Where(ctx, tk, now.Add(-time.Minute)) // b's clock started a minute ago, at a tenth
	at := now.Add(time.Second)
	if p, _ := b.Where(ctx, tk, at); b.Pass(p, at) {
		t.Fatalf("b lets the plain ticket in: %+v (the test's premise)", p)
	}
	got, ok := b.Decode(a.Encode(pass))
	if !ok || got != pass {
		t.Fatalf("decoded %+v %v; want %+v", got, ok, pass)
	}
	for _, c := range []struct {
		at   time.Time
		want bool
	}{{at, true}, {now.Add(a.PassFor), true}, {now.Add(a.PassFor + 1), false}} {
		if p, err := b.Where(ctx, got, c.at); err != nil || b.Pass(p, c.at) != c.want {
			t.Errorf("pass at +%v: %+v %v; want %v", c.at.Sub(now), p, err, c.want)
		}
	}
	s := a.Encode(pass)
	if _, ok := a.Decode(strings.Replace(s, "2.", "1.", 1)); ok {
		t.Error("a pass read as a plain ticket")
	}
}

// Redis keeps no line across a restart (no persistence in the cluster),
// nor can it be asked while it is down (each instance then keeps its own):
// either way the line's tail is not in the store. Those who arrive then
// still queue behind every ticket the instance handed out or was shown,
// not ahead of the whole line.
func TestLineOutlivesRedis(t *testing.T) {
	redistest.URL(t) // skips without TUTTI_TEST_REDIS, as the others
	srv := redistest.Start(t)
	c := redistest.On(t, srv.URL(), "room:")
	ctx := context.Background()
	a, _ := room.New(room.NewRedis(c), key, 10, 2) // one every 100 ms, two at once
	b, _ := room.New(room.NewRedis(c), key, 10, 2) // another instance
	now := time.Now()
	var tickets []room.Ticket
	for u := range 20 {
		tk, err := []*room.Rooms{a, b}[u%2].Join(ctx, "r", int64(u+1), now, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		tickets = append(tickets, tk)
	}
	last := tickets[len(tickets)-1].At // +1.8 s
	// The line waits; its tickets are shown to either instance.
	for i, tk := range tickets {
		[]*room.Rooms{b, a}[i%2].Where(ctx, tk, now)
	}
	check := func(what string, rs *room.Rooms, user int64, at time.Time) {
		t.Helper()
		tk, err := rs.Join(ctx, "r", user, at, time.Time{}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if tk.At.Before(last) {
			t.Errorf("%s: an arrival's slot is +%v, ahead of the line's last ticket at +%v", what, tk.At.Sub(now), last.Sub(now))
		}
		if tk.At.After(last) {
			last = tk.At
		}
	}
	srv.Stop()
	check("Redis down, instance a", a, 100, now.Add(10*time.Millisecond))
	check("Redis down, instance b", b, 101, now.Add(20*time.Millisecond))
	srv.Start()
	redistest.WaitUnpaused(t, c)
	check("Redis restarted, instance a", a, 102, now.Add(30*time.Millisecond))
	check("Redis restarted, instance b", b, 103, now.Add(40*time.Millisecond))
}
