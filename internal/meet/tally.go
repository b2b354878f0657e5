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
// It costs O(slots + covered slots), not O(slots × timeframes).
func Tally(slots []time.Time, tfs []Timeframe) []SlotTally {
	out := make([]SlotTally, len(slots))
	for i, s := range slots {
		out[i].Start = s
	}
	best := map[[2]int64]int{} // (slot, participant) -> best tier
	for _, tf := range tfs {
		if tf.Tier < 1 || tf.Tier > 3 {
			continue
		}
		i := sort.Search(len(slots), func(i int) bool { return !slots[i].Before(tf.Start) })
		for ; i < len(slots) && slots[i].Before(tf.End); i++ {
			k := [2]int64{int64(i), tf.ParticipantID}
			if t, ok := best[k]; !ok || tf.Tier < t {
				best[k] = tf.Tier
			}
		}
	}
	for k, tier := range best {
		t := &out[k[0]]
		t.Count++
		t.SumSq += tier * tier
		t.Avail = append(t.Avail, Avail{ParticipantID: k[1], Tier: tier})
	}
	for i := range out {
		a := out[i].Avail
		sort.Slice(a, func(x, y int) bool {
			if a[x].Tier != a[y].Tier {
				return a[x].Tier < a[y].Tier
			}
			return a[x].ParticipantID < a[y].ParticipantID
		})
	}
	return out
}

// Range is a run of neighbouring slots with the same score and people.
type Range struct {
	Start, End time.Time
	Count      int
	SumSq      int
	Avail      []Avail
}

// Best merges neighbouring slots (15 minutes apart) with the same count, sum
// of squared tiers and participants into ranges, and returns at most limit of
// them: most people first, then the lowest sum of squared tiers (preferred
// beats fine beats if-need-be), then the earliest. Slots nobody can make are
// left out.
func Best(t []SlotTally, limit int) []Range {
	var rs []Range
	for i, s := range t {
		if s.Count == 0 {
			continue
		}
		if n := len(rs); n > 0 && i > 0 && rs[n-1].End.Equal(s.Start) && rs[n-1].Count == s.Count &&
			rs[n-1].SumSq == s.SumSq && sameAvail(rs[n-1].Avail, s.Avail) {
			rs[n-1].End = s.Start.Add(Slot)
			continue
		}
		rs = append(rs, Range{Start: s.Start, End: s.Start.Add(Slot), Count: s.Count, SumSq: s.SumSq, Avail: s.Avail})
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
	return rs
}

func sameAvail(a, b []Avail) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
