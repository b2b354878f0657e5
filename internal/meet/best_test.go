package meet

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"
)

// TestBestDuration ranks start times of meetings longer than a slot: only
// people free for the whole meeting count, at their worst tier in it.
func TestBestDuration(t *testing.T) {
	type want struct {
		start, lastStart, end string
		count, sumSq          int
		avail                 []Avail
	}
	cases := []struct {
		name string
		poll *Poll
		d    time.Duration
		tfs  []Timeframe
		want []want
	}{
		{
			name: "free for the whole hour, not for a quarter of it",
			d:    time.Hour,
			tfs: []Timeframe{
				// Ada and Bob overlap 09:30-10:00 only: half an hour.
				tf(1, "2030-05-06 09:00", "2030-05-06 10:00", 1),
				tf(2, "2030-05-06 09:30", "2030-05-06 10:00", 1),
				tf(3, "2030-05-06 10:30", "2030-05-06 12:00", 2),
				tf(4, "2030-05-06 10:45", "2030-05-06 12:00", 3),
			},
			// 10:45 and 11:00: Cora (2) and Dan (3): 2 people, 4+9 = 13,
			// merged. 09:00: Ada alone, 1. 10:30: Cora alone, 4.
			want: []want{
				{"10:45", "11:00", "12:00", 2, 13, []Avail{{3, 2}, {4, 3}}},
				{"09:00", "09:00", "10:00", 1, 1, []Avail{{1, 1}}},
				{"10:30", "10:30", "11:30", 1, 4, []Avail{{3, 2}}},
			},
		},
		{
			name: "a person's tier is their worst in the meeting",
			d:    30 * time.Minute,
			tfs: []Timeframe{
				tf(1, "2030-05-06 09:00", "2030-05-06 09:15", 1),
				tf(1, "2030-05-06 09:15", "2030-05-06 09:30", 3),
				tf(2, "2030-05-06 09:00", "2030-05-06 09:30", 2),
				tf(3, "2030-05-06 11:00", "2030-05-06 11:30", 1),
			},
			// 09:00: Ada worst 3 (9) + Bob 2 (4) = 13; 11:00: Cora alone.
			want: []want{
				{"09:00", "09:00", "09:30", 2, 13, []Avail{{2, 2}, {1, 3}}},
				{"11:00", "11:00", "11:30", 1, 1, []Avail{{3, 1}}},
			},
		},
		{
			name: "neighbouring starts with other people are not merged",
			d:    30 * time.Minute,
			tfs: []Timeframe{
				tf(1, "2030-05-06 09:00", "2030-05-06 09:30", 1),
				tf(2, "2030-05-06 09:15", "2030-05-06 09:45", 1),
			},
			want: []want{
				{"09:00", "09:00", "09:30", 1, 1, []Avail{{1, 1}}},
				{"09:15", "09:15", "09:45", 1, 1, []Avail{{2, 1}}},
			},
		},
		{
			name: "a meeting does not run past the daily window into the next day",
			poll: &Poll{StartDate: "2030-05-06", EndDate: "2030-05-07", DayStart: 9 * 60, DayEnd: 12 * 60, TZ: "UTC"},
			d:    time.Hour,
			tfs: []Timeframe{
				tf(1, "2030-05-06 11:30", "2030-05-06 12:00", 1),
				tf(1, "2030-05-07 09:00", "2030-05-07 09:30", 1),
			},
		},
		{
			name: "a whole-day window runs on at midnight",
			poll: &Poll{StartDate: "2030-05-06", EndDate: "2030-05-07", DayStart: 0, DayEnd: 24 * 60, TZ: "UTC"},
			d:    time.Hour,
			tfs: []Timeframe{
				tf(1, "2030-05-06 23:30", "2030-05-07 00:30", 2),
			},
			want: []want{{"2030-05-06 23:30", "2030-05-06 23:30", "2030-05-07 00:30", 1, 4, []Avail{{1, 2}}}},
		},
		{
			// Berlin springs forward on 2026-03-29: 01:30 CET to 03:30 CEST
			// is one real hour, 00:30-01:30 UTC, made of consecutive slots.
			name: "over a skipped hour a meeting lasts its real length",
			poll: &Poll{StartDate: "2026-03-29", EndDate: "2026-03-29", DayStart: 0, DayEnd: 6 * 60, TZ: "Europe/Berlin"},
			d:    time.Hour,
			tfs:  []Timeframe{tf(1, "2026-03-29 00:30", "2026-03-29 01:30", 1)},
			want: []want{{"2026-03-29 00:30", "2026-03-29 00:30", "2026-03-29 01:30", 1, 1, []Avail{{1, 1}}}},
		},
		{
			name: "a meeting longer than the window has no start",
			d:    4 * time.Hour,
			tfs:  []Timeframe{tf(1, "2030-05-06 09:00", "2030-05-06 12:00", 1)},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := c.poll
			if p == nil {
				p = dayPoll
			}
			got := Best(Tally(p.Slots(), c.tfs), c.d, 10)
			if len(got) != len(c.want) {
				t.Fatalf("got %d ranges %+v; want %d", len(got), got, len(c.want))
			}
			day := func(s string) time.Time {
				if len(s) == 5 {
					s = "2030-05-06 " + s
				}
				return utc(s)
			}
			for i, w := range c.want {
				g := got[i]
				if !g.Start.Equal(day(w.start)) || !g.LastStart.Equal(day(w.lastStart)) || !g.End.Equal(day(w.end)) ||
					g.Count != w.count || g.SumSq != w.sumSq || !reflect.DeepEqual(g.Avail, w.avail) {
					t.Errorf("range %d = %s..%s-%s count %d sumSq %d %v; want %s..%s-%s count %d sumSq %d %v", i,
						g.Start.Format("01-02 15:04"), g.LastStart.Format("15:04"), g.End.Format("15:04"), g.Count, g.SumSq, g.Avail,
						w.start, w.lastStart, w.end, w.count, w.sumSq, w.avail)
				}
			}
		})
	}
}

// bestNaive is the definition of Best, computed the slow way: every start,
// every slot of its meeting, every person.
func bestNaive(slots []time.Time, tfs []Timeframe, d time.Duration, limit int) []Range {
	n := int(d / Slot)
	tally := Tally(slots, tfs)
	type start struct {
		i     int
		avail []Avail
		sumSq int
	}
	var starts []start
	for i := range slots {
		if i+n > len(slots) || !slots[i+n-1].Equal(slots[i].Add(d-Slot)) {
			continue
		}
		worst := map[int64]int{}
		in := map[int64]int{}
		for k := i; k < i+n; k++ {
			for _, av := range tally[k].Avail {
				in[av.ParticipantID]++
				worst[av.ParticipantID] = max(worst[av.ParticipantID], av.Tier)
			}
		}
		s := start{i: i}
		for pid, c := range in {
			if c == n {
				s.avail = append(s.avail, Avail{pid, worst[pid]})
				s.sumSq += worst[pid] * worst[pid]
			}
		}
		sort.Slice(s.avail, func(x, y int) bool {
			if s.avail[x].Tier != s.avail[y].Tier {
				return s.avail[x].Tier < s.avail[y].Tier
			}
			return s.avail[x].ParticipantID < s.avail[y].ParticipantID
		})
		if len(s.avail) > 0 {
			starts = append(starts, s)
		}
	}
	var rs []Range
	for j, s := range starts {
		if m := len(rs); m > 0 && starts[j-1].i == s.i-1 && rs[m-1].LastStart.Equal(slots[s.i].Add(-Slot)) &&
			reflect.DeepEqual(rs[m-1].Avail, s.avail) {
			rs[m-1].LastStart, rs[m-1].End = slots[s.i], slots[s.i].Add(d)
			continue
		}
		rs = append(rs, Range{Start: slots[s.i], LastStart: slots[s.i], End: slots[s.i].Add(d), Count: len(s.avail), SumSq: s.sumSq, Avail: s.avail})
	}
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Count != rs[j].Count {
			return rs[i].Count > rs[j].Count
		}
		if rs[i].SumSq != rs[j].SumSq {
			return rs[i].SumSq < rs[j].SumSq
		}
		return rs[i].Start.Before(rs[j].Start)
	})
	return rs[:min(limit, len(rs))]
}

// TestBestMatchesDefinition compares Best with the slow definition on random
// polls (two windows a day, a DST change, and a whole-day window).
func TestBestMatchesDefinition(t *testing.T) {
	polls := []*Poll{
		{StartDate: "2030-05-06", EndDate: "2030-05-08", DayStart: 9 * 60, DayEnd: 13 * 60, TZ: "UTC"},
		{StartDate: "2026-03-28", EndDate: "2026-03-30", DayStart: 0, DayEnd: 5 * 60, TZ: "Europe/Berlin"},
		{StartDate: "2026-10-31", EndDate: "2026-11-02", DayStart: 0, DayEnd: 24 * 60, TZ: "America/New_York"},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		p := polls[round%len(polls)]
		slots := p.Slots()
		var tfs []Timeframe
		for range rng.IntN(40) {
			i := rng.IntN(len(slots))
			j := min(len(slots), i+1+rng.IntN(12))
			// Keep to consecutive slots, as stored timeframes are.
			e := i + 1
			for e < j && slots[e].Equal(slots[e-1].Add(Slot)) {
				e++
			}
			tfs = append(tfs, Timeframe{ParticipantID: int64(1 + rng.IntN(8)), Start: slots[i], End: slots[e-1].Add(Slot), Tier: 1 + rng.IntN(3)})
		}
		d := time.Duration(1+rng.IntN(8)) * Slot
		limit := 1 + rng.IntN(20)
		got := Best(Tally(slots, tfs), d, limit)
		want := bestNaive(slots, tfs, d, limit)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d (%s, %v, limit %d):\n got %s\nwant %s", round, p.TZ, d, limit, fmtRanges(got), fmtRanges(want))
		}
	}
}

func fmtRanges(rs []Range) string {
	s := ""
	for _, r := range rs {
		s += fmt.Sprintf("[%s..%s-%s %d %d %v] ", r.Start.Format("01-02 15:04"), r.LastStart.Format("15:04"), r.End.Format("15:04"), r.Count, r.SumSq, r.Avail)
	}
	return s
}

// BenchmarkBest2h ranks two-hour meetings over the same data as
// BenchmarkTally500 (500 people, 2,000 timeframes, 31 days of 12 hours).
func BenchmarkBest2h(b *testing.B) {
	p := &Poll{StartDate: "2030-05-01", EndDate: "2030-05-31", DayStart: 8 * 60, DayEnd: 20 * 60, TZ: "UTC"}
	slots := p.Slots()
	var tfs []Timeframe
	for i := range 2000 {
		s := slots[(i*37)%(len(slots)-8)]
		tfs = append(tfs, Timeframe{ParticipantID: int64(i % 500), Start: s, End: s.Add(2 * time.Hour), Tier: 1 + i%3})
	}
	b.ReportAllocs()
	for b.Loop() {
		Best(Tally(slots, tfs), 2*time.Hour, BestLimit)
	}
}
