package meet

import (
	"sort"
	"time"
)

// MergeTimeframes returns one participant's timeframes as their union: where
// timeframes overlap, the better (lower) tier wins, as in the tally; touching
// stretches of the same tier become one. The result is sorted by start and
// has no overlaps; IDs are not kept.
func MergeTimeframes(tfs []Timeframe) []Timeframe {
	if len(tfs) == 0 {
		return nil
	}
	type edge struct {
		at   time.Time
		tier int
		open int // +1 a timeframe starts, -1 one ends
	}
	edges := make([]edge, 0, 2*len(tfs))
	for _, t := range tfs {
		if !t.Start.Before(t.End) || t.Tier < TierPreferred || t.Tier > TierIfNeed {
			continue
		}
		edges = append(edges, edge{t.Start, t.Tier, +1}, edge{t.End, t.Tier, -1})
	}
	sort.Slice(edges, func(i, j int) bool { return edges[i].at.Before(edges[j].at) })
	pid := tfs[0].ParticipantID
	var open [TierIfNeed + 1]int
	var out []Timeframe
	for i := 0; i < len(edges); {
		at := edges[i].at
		for ; i < len(edges) && edges[i].at.Equal(at); i++ {
			open[edges[i].tier] += edges[i].open
		}
		if i == len(edges) {
			break
		}
		best := 0
		for tier := TierPreferred; tier <= TierIfNeed; tier++ {
			if open[tier] > 0 {
				best = tier
				break
			}
		}
		if best == 0 {
			continue
		}
		next := edges[i].at
		if n := len(out); n > 0 && out[n-1].End.Equal(at) && out[n-1].Tier == best {
			out[n-1].End = next
			continue
		}
		out = append(out, Timeframe{ParticipantID: pid, Start: at, End: next, Tier: best})
	}
	return out
}
