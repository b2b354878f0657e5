package meet

import (
	"sort"
	"time"
)

// Avail is one participant available in a slot, at a tier.
type Avail struct {
	ParticipantID int64
	Tier          int
}

// SlotTally is who is available in one slot.
type SlotTally struct {
	Start time.Time
	Count int     // participants available
	SumSq int     // sum of the squares of their tiers: less is better
	Avail []Avail // sorted by tier, then participant
}

// Tally counts, for every slot, the participants available in it; a
// participant with overlapping timeframes counts once, at their best tier.
// It costs O(slots + covered slots + timeframes × log), not O(slots ×
// timeframes): timeframes are taken one participant at a time, and each
// covered slot is marked with the participant last seen in it.
func Tally(slots []time.Time, tfs []Timeframe) []SlotTally {
	out := make([]SlotTally, len(slots))
	for i, s := range slots {
		out[i].Start = s
	}
	order := make([]int, 0, len(tfs))
	for i, tf := range tfs {
		if tf.Tier >= 1 && tf.Tier <= 3 {
			order = append(order, i)
		}
	}
	sort.Slice(order, func(x, y int) bool { return tfs[order[x]].ParticipantID < tfs[order[y]].ParticipantID })
	seen := make([]int, len(slots)) // slot -> 1 + position in order of the participant's first timeframe
	tier := make([]int, len(slots)) // slot -> that participant's best tier in it
	var covered []int
	for lo := 0; lo < len(order); {
		pid := tfs[order[lo]].ParticipantID
		hi := lo
		covered = covered[:0]
		for ; hi < len(order) && tfs[order[hi]].ParticipantID == pid; hi++ {
			tf := tfs[order[hi]]
			i := sort.Search(len(slots), func(i int) bool { return !slots[i].Before(tf.Start) })
			for ; i < len(slots) && slots[i].Before(tf.End); i++ {
				switch {
				case seen[i] != lo+1:
					seen[i], tier[i] = lo+1, tf.Tier
					covered = append(covered, i)
				case tf.Tier < tier[i]:
					tier[i] = tf.Tier
				}
			}
		}
		for _, i := range covered {
			t := &out[i]
			t.Count++
			t.SumSq += tier[i] * tier[i]
			t.Avail = append(t.Avail, Avail{ParticipantID: pid, Tier: tier[i]})
		}
		lo = hi
	}
	// Participants were added in increasing order; a stable insertion sort
	// by tier (the lists are short) keeps them so within a tier.
	for i := range out {
		a := out[i].Avail
		for x := 1; x < len(a); x++ {
			for y := x; y > 0 && a[y].Tier < a[y-1].Tier; y-- {
				a[y], a[y-1] = a[y-1], a[y]
			}
		}
	}
	return out
}

// Range is a run of neighbouring start times that score the same, with the
// same people at the same tiers: a meeting of the poll's length can start at
// any time from Start to LastStart, and ends by End (LastStart + the length).
// With a length of one slot it is simply a run of equal slots.
type Range struct {
	Start, End time.Time
	LastStart  time.Time
	Count      int     // people free for the whole meeting
	SumSq      int     // sum over them of the square of their worst tier in it
	Avail      []Avail // who, at their worst tier in the meeting; by tier, then participant
}

// Best ranks the start times of a meeting lasting d (a multiple of Slot) and
// returns at most limit ranges of them, best first.
//
// A start is a poll slot such that the meeting [start, start+d) is made of the
// poll's consecutive slots, each beginning where the previous one ends: a
// meeting never runs past the end of the daily window into the next day's
// window (unless the window is the whole day, so that the slots do follow on
// at midnight), nor outside the poll's dates. Slots are instants, so across a
// daylight-saving change a meeting lasts d of real time: over a skipped hour
// it spans the gap on the wall clock (01:30-03:30 on a spring-forward night is
// one hour), and over a repeated hour it can start in either copy.
//
// For each start, the people counted are those free in every slot of the
// meeting; a person's tier for it is their worst tier (the highest number) in
// any of its slots, since the meeting asks the most of them there. Starts are
// ranked by that count (more first), then by the sum of the squares of those
// worst tiers (less first: preferred 1, fine 4, if need be 9, as the seed
// squares tiers), then by time (earlier first). Neighbouring starts whose
// people and worst tiers are the same are merged into one range. Starts
// nobody can make are left out.
//
// The cost is O(slots + covered slots) whatever d: one window slides over
// the slots, and only the people entering or leaving it are looked at.
func Best(t []SlotTally, d time.Duration, limit int) []Range {
	n := int(d / Slot)
	if n < 1 || len(t) == 0 || limit <= 0 {
		return nil
	}
	// Dense person numbers, so that the window's state is kept in slices.
	ids := map[int64]int32{}
	dense := make([][]int32, len(t)) // per slot: the dense number of each Avail
	for i := range t {
		ds := make([]int32, len(t[i].Avail))
		for j, av := range t[i].Avail {
			k, ok := ids[av.ParticipantID]
			if !ok {
				k = int32(len(ids))
				ids[av.ParticipantID] = k
			}
			ds[j] = k
		}
		dense[i] = ds
	}
	type person struct {
		slots  int    // slots of the window they are free in
		tiers  [4]int // how many of them at each tier
		stamp  int    // the step in which before was recorded
		before int    // their worth before this step: 0, or their worst tier
	}
	people := make([]person, len(ids))
	worth := func(p *person) int { // 0 unless free in every slot; else the worst tier
		switch {
		case p.slots != n:
			return 0
		case p.tiers[3] > 0:
			return 3
		case p.tiers[2] > 0:
			return 2
		}
		return 1
	}
	var touched []int32
	step := 0
	count, sumSq := 0, 0
	// apply adds (sign 1) or removes (sign -1) slot i's people to the window.
	apply := func(i, sign int) {
		for j, av := range t[i].Avail {
			k := dense[i][j]
			p := &people[k]
			if p.stamp != step {
				p.stamp, p.before = step, worth(p)
				touched = append(touched, k)
			}
			p.slots += sign
			p.tiers[av.Tier] += sign
		}
	}
	// settle updates the count and sum for the people this step touched and
	// reports whether anyone's worth changed.
	settle := func() bool {
		changed := false
		for _, k := range touched {
			p := &people[k]
			after := worth(p)
			if after == p.before {
				continue
			}
			changed = true
			if p.before > 0 {
				count--
				sumSq -= p.before * p.before
			}
			if after > 0 {
				count++
				sumSq += after * after
			}
		}
		touched = touched[:0]
		return changed
	}
	var rs []Range
	for lo := 0; lo < len(t); {
		// [lo, hi) is a run of consecutive slots.
		hi := lo + 1
		for hi < len(t) && t[hi].Start.Equal(t[hi-1].Start.Add(Slot)) {
			hi++
		}
		if hi-lo >= n {
			step++
			for i := lo; i < lo+n; i++ {
				apply(i, 1)
			}
			settle()
			changed := true // a run's first start opens a new range
			for s := lo; ; s++ {
				// The window is [s, s+n).
				if count > 0 {
					if m := len(rs); !changed && m > 0 && rs[m-1].LastStart.Equal(t[s-1].Start) {
						rs[m-1].LastStart, rs[m-1].End = t[s].Start, t[s].Start.Add(d)
					} else {
						rs = append(rs, Range{Start: t[s].Start, LastStart: t[s].Start, End: t[s].Start.Add(d),
							Count: count, SumSq: sumSq})
					}
				}
				if s+n >= hi {
					break
				}
				step++
				apply(s, -1)
				apply(s+n, 1)
				changed = settle()
			}
			// Empty the window for the next run.
			step++
			for i := hi - n; i < hi; i++ {
				apply(i, -1)
			}
			settle()
		}
		lo = hi
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
	if len(rs) > limit {
		rs = rs[:limit]
	}
	// Who is free, only for the ranges shown: the people free in every slot
	// of the first start's meeting, at their worst tier there.
	for r := range rs {
		s := sort.Search(len(t), func(i int) bool { return !t[i].Start.Before(rs[r].Start) })
		free := map[int64][2]int{} // participant -> slots, worst tier
		for i := s; i < s+n; i++ {
			for _, av := range t[i].Avail {
				f := free[av.ParticipantID]
				free[av.ParticipantID] = [2]int{f[0] + 1, max(f[1], av.Tier)}
			}
		}
		for pid, f := range free {
			if f[0] == n {
				rs[r].Avail = append(rs[r].Avail, Avail{ParticipantID: pid, Tier: f[1]})
			}
		}
		a := rs[r].Avail
		sort.Slice(a, func(x, y int) bool {
			if a[x].Tier != a[y].Tier {
				return a[x].Tier < a[y].Tier
			}
			return a[x].ParticipantID < a[y].ParticipantID
		})
	}
	return rs
}
