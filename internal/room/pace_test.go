package room_test

import (
	"context"
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
