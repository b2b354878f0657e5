package meet

import (
	"testing"
	"time"

	_ "time/tzdata"
)

func utc(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		panic(err)
	}
	return t
}

func tf(pid int64, start, end string, tier int) Timeframe {
	return Timeframe{ParticipantID: pid, Start: utc(start), End: utc(end), Tier: tier}
}

// A poll of one day, 09:00-12:00 UTC: 12 slots.
var dayPoll = &Poll{StartDate: "2030-05-06", EndDate: "2030-05-06", DayStart: 9 * 60, DayEnd: 12 * 60, TZ: "UTC"}

// TestBest ranks 15-minute meetings: the seed's ranking of single slots.
func TestBest(t *testing.T) {
	type want struct {
		start, end   string
		count, sumSq int
	}
	cases := []struct {
		name string
		poll *Poll
		tfs  []Timeframe
		want []want
	}{
		{
			name: "majority first",
			tfs: []Timeframe{
				tf(1, "2030-05-06 09:00", "2030-05-06 10:00", 1),
				tf(2, "2030-05-06 09:30", "2030-05-06 11:00", 1),
				tf(3, "2030-05-06 09:45", "2030-05-06 10:15", 1),
			},
			// 09:45-10:00: 1,2,3 -> 3 people, 1+1+1 = 3.
			// 09:30-09:45: 1,2 -> 2, 2. 10:00-10:15: 2,3 -> 2, 2 (other people: not merged).
			want: []want{
				{"09:45", "10:00", 3, 3},
				{"09:30", "09:45", 2, 2},
				{"10:00", "10:15", 2, 2},
				{"09:00", "09:30", 1, 1},
				{"10:15", "11:00", 1, 1},
			},
		},
		{
			name: "ties broken by the sum of squared tiers",
			tfs: []Timeframe{
				// 09:00-10:00: Ada tier 1, Bob tier 2 -> 2 people, 1+4 = 5.
				// 11:00-12:00: Ada tier 1, Bob tier 1 -> 2 people, 1+1 = 2: better.
				// 10:00-11:00: Ada tier 3, Bob tier 1 -> 2 people, 9+1 = 10: worst.
				tf(1, "2030-05-06 09:00", "2030-05-06 10:00", 1),
				tf(2, "2030-05-06 09:00", "2030-05-06 10:00", 2),
				tf(1, "2030-05-06 10:00", "2030-05-06 11:00", 3),
				tf(2, "2030-05-06 10:00", "2030-05-06 11:00", 1),
				tf(1, "2030-05-06 11:00", "2030-05-06 12:00", 1),
				tf(2, "2030-05-06 11:00", "2030-05-06 12:00", 1),
			},
			want: []want{{"11:00", "12:00", 2, 2}, {"09:00", "10:00", 2, 5}, {"10:00", "11:00", 2, 10}},
		},
		{
			name: "overlapping timeframes of one person count once, at the best tier",
			tfs: []Timeframe{
				tf(1, "2030-05-06 09:00", "2030-05-06 10:00", 3),
				tf(1, "2030-05-06 09:30", "2030-05-06 09:45", 1),
			},
			// 09:30-09:45 tier 1 -> sumSq 1; the rest tier 3 -> 9.
			want: []want{{"09:30", "09:45", 1, 1}, {"09:00", "09:30", 1, 9}, {"09:45", "10:00", 1, 9}},
		},
		{
			name: "neighbours across days are not merged",
			poll: &Poll{StartDate: "2030-05-06", EndDate: "2030-05-07", DayStart: 23 * 60, DayEnd: 24 * 60, TZ: "UTC"},
			tfs: []Timeframe{
				tf(1, "2030-05-06 23:00", "2030-05-07 00:00", 1),
				tf(1, "2030-05-07 23:00", "2030-05-08 00:00", 1),
			},
			want: []want{{"2030-05-06 23:00", "2030-05-07 00:00", 1, 1}, {"2030-05-07 23:00", "2030-05-08 00:00", 1, 1}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.poll
			if p == nil {
				p = dayPoll
			}
			got := Best(Tally(p.Slots(), c.tfs), Slot, 10)
			if len(got) != len(c.want) {
				t.Fatalf("got %d ranges %v; want %d", len(got), got, len(c.want))
			}
			for i, w := range c.want {
				ws, we := w.start, w.end
				if len(ws) == 5 {
					ws, we = "2030-05-06 "+ws, "2030-05-06 "+we
				}
				g := got[i]
				if !g.Start.Equal(utc(ws)) || !g.End.Equal(utc(we)) || g.Count != w.count || g.SumSq != w.sumSq {
					t.Errorf("range %d = %s-%s count %d sumSq %d; want %s-%s count %d sumSq %d", i,
						g.Start.Format("01-02 15:04"), g.End.Format("15:04"), g.Count, g.SumSq, ws, we, w.count, w.sumSq)
				}
			}
		})
	}
}

func TestSlotsAcrossDST(t *testing.T) {
	cases := []struct {
		name       string
		poll       Poll
		slots      int
		firstLocal string
	}{
		// Berlin springs forward on 2026-03-29 at 02:00 -> 03:00: the window
		// 00:00-04:00 has 3 real hours that day, 4 on the others: 16+12+16.
		{"spring forward", Poll{StartDate: "2026-03-28", EndDate: "2026-03-30", DayStart: 0, DayEnd: 4 * 60, TZ: "Europe/Berlin"}, 44, "2026-03-28 00:00"},
		// New York falls back on 2026-11-01 at 02:00 -> 01:00: the window
		// 00:00-03:00 has 4 real hours that day: 12+16+12.
		{"fall back", Poll{StartDate: "2026-10-31", EndDate: "2026-11-02", DayStart: 0, DayEnd: 3 * 60, TZ: "America/New_York"}, 40, "2026-10-31 00:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.poll.Slots()
			if len(s) != c.slots {
				t.Fatalf("got %d slots; want %d", len(s), c.slots)
			}
			for i := 1; i < len(s); i++ {
				if !s[i].After(s[i-1]) {
					t.Fatalf("slots not strictly increasing at %d", i)
				}
			}
			loc, _ := c.poll.Location()
			if got := s[0].In(loc).Format("2006-01-02 15:04"); got != c.firstLocal {
				t.Errorf("first slot %s; want %s", got, c.firstLocal)
			}
			g := BuildGrid(s, loc)
			seen := map[int]bool{}
			for _, r := range g.Rows {
				for _, cell := range r.Cells {
					if cell.Slot >= 0 {
						if seen[cell.Slot] {
							t.Errorf("slot %d twice in the grid", cell.Slot)
						}
						seen[cell.Slot] = true
					}
				}
			}
			if len(seen) != len(s) {
				t.Errorf("grid shows %d of %d slots", len(seen), len(s))
			}
		})
	}
	// A timeframe typed in Berlin wall time on the DST day maps to the right
	// instants: 03:00-04:00 CEST is 01:00-02:00 UTC.
	p := &Poll{StartDate: "2026-03-29", EndDate: "2026-03-29", DayStart: 0, DayEnd: 6 * 60, TZ: "Europe/Berlin"}
	got, errs := ParseTimeframe(p, "2026-03-29", "03:00", "04:00", "1", "Europe/Berlin")
	if len(errs) != 0 || len(got) != 1 || !got[0].Start.Equal(utc("2026-03-29 01:00")) || !got[0].End.Equal(utc("2026-03-29 02:00")) {
		t.Errorf("ParseTimeframe = %v %v; want 01:00-02:00 UTC", got, errs)
	}
	// Best over a poll with the DST change: Ada 01:00-03:00 local on the
	// 29th (the clock jumps, so that is 00:00-01:00 UTC = 1 hour = 4 slots).
	ada := Timeframe{ParticipantID: 1, Start: utc("2026-03-29 00:00"), End: utc("2026-03-29 01:00"), Tier: 2}
	best := Best(Tally(p.Slots(), []Timeframe{ada}), Slot, 5)
	if len(best) != 1 || best[0].End.Sub(best[0].Start) != time.Hour || best[0].SumSq != 4 {
		t.Errorf("best = %+v; want one 1-hour range with sumSq 4", best)
	}
}

func TestBuildGridOtherZone(t *testing.T) {
	// 22:00-24:00 UTC seen from Tokyo (+9) is 07:00-09:00 the next day.
	p := &Poll{StartDate: "2030-05-06", EndDate: "2030-05-06", DayStart: 22 * 60, DayEnd: 24 * 60, TZ: "UTC"}
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	g := BuildGrid(p.Slots(), tokyo)
	if len(g.Days) != 1 || g.Days[0].Date != "2030-05-07" || len(g.Rows) != 8 || g.Rows[0].Label != "07:00" {
		t.Errorf("grid = days %v, %d rows from %q; want 2030-05-07, 8 rows from 07:00", g.Days, len(g.Rows), g.Rows[0].Label)
	}
}

func BenchmarkTally500(b *testing.B) {
	p := &Poll{StartDate: "2030-05-01", EndDate: "2030-05-31", DayStart: 8 * 60, DayEnd: 20 * 60, TZ: "UTC"}
	slots := p.Slots()
	var tfs []Timeframe
	for i := range 2000 {
		s := slots[(i*37)%(len(slots)-8)]
		tfs = append(tfs, Timeframe{ParticipantID: int64(i % 500), Start: s, End: s.Add(2 * time.Hour), Tier: 1 + i%3})
	}
	b.ReportAllocs()
	for b.Loop() {
		Best(Tally(slots, tfs), DefaultDuration, BestLimit)
	}
}
