package meet

import (
	"sort"
	"time"

	"github.com/tutti-dev/tutti/internal/walltime"
)

// Cell is one cell of the grid: a slot, or none (-1) where the poll has no
// slot at that day and time.
type Cell struct {
	Slot  int
	Start time.Time
}

// GridRow is one wall-clock time of the viewer's zone.
type GridRow struct {
	Label  string // "09:00", or "01:00 (2nd, UTC−5)" for a repeated hour
	Minute int    // minutes after local midnight
	Cells  []Cell
}

// GridDay is one column: a date in the viewer's zone.
type GridDay struct {
	Date  string // YYYY-MM-DD
	Label string // "Mon 2 Mar"
}

// Grid lays the poll's slots out in a viewer's zone.
type Grid struct {
	Zone string
	Days []GridDay
	Rows []GridRow
}

// BuildGrid puts every slot in a column (its local date in loc) and a row (its
// local wall time in loc). A viewer in another zone sees every slot, including
// those that fall outside the organizer's window or on another date in their
// zone; a repeated wall time (fall back) gets its own row. Every slot index
// appears exactly once.
func BuildGrid(slots []time.Time, loc *time.Location) Grid {
	g := Grid{Zone: loc.String()}
	type rowKey struct{ minute, nth int }
	dayIdx := map[string]int{}
	cells := map[rowKey]map[int]Cell{}
	seen := map[[2]int]int{} // (day, minute) -> times seen
	last := map[int]rowKey{} // day -> its latest row so far
	after := map[rowKey]map[rowKey]bool{}
	var dates []string
	for i, s := range slots {
		l := s.In(loc)
		date := l.Format(time.DateOnly)
		if _, ok := dayIdx[date]; !ok {
			dayIdx[date] = len(dates)
			dates = append(dates, date)
		}
		d := dayIdx[date]
		m := l.Hour()*60 + l.Minute()
		k := rowKey{m, seen[[2]int{d, m}]}
		seen[[2]int{d, m}]++
		if p, ok := last[d]; ok && p != k {
			// On day d, row p comes before row k.
			if after[p] == nil {
				after[p] = map[rowKey]bool{}
			}
			after[p][k] = true
		}
		last[d] = k
		if cells[k] == nil {
			cells[k] = map[int]Cell{}
		}
		cells[k][d] = Cell{Slot: i, Start: s}
	}
	sort.Strings(dates)
	order := make(map[int]int, len(dates)) // first-seen day index -> sorted position
	for pos, date := range dates {
		order[dayIdx[date]] = pos
	}
	for _, date := range dates {
		t, _ := time.Parse(time.DateOnly, date)
		g.Days = append(g.Days, GridDay{Date: date, Label: t.Format("Mon 2 Jan")})
	}
	// Rows in the order of time on every day: by wall clock, except that
	// the second pass of a repeated hour comes after the first pass's end
	// (02:00, ..., 02:45, 02:00 (2nd), ..., 02:45 (2nd), 03:00). A
	// topological order of "comes before on some day", the earliest wall
	// clock first among the rows free to go.
	less := func(a, b rowKey) bool {
		if a.minute != b.minute {
			return a.minute < b.minute
		}
		return a.nth < b.nth
	}
	preds := make(map[rowKey]int, len(cells))
	for _, next := range after {
		for k := range next {
			preds[k]++
		}
	}
	keys := make([]rowKey, 0, len(cells))
	placed := make(map[rowKey]bool, len(cells))
	for len(keys) < len(cells) {
		var best rowKey
		found, stalled := false, true
		for k := range cells {
			if !placed[k] && preds[k] == 0 && (!found || less(k, best)) {
				best, found, stalled = k, true, false
			}
		}
		if stalled { // a cycle (cannot happen in one zone's days): wall-clock order
			for k := range cells {
				if !placed[k] && (!found || less(k, best)) {
					best, found = k, true
				}
			}
		}
		placed[best] = true
		keys = append(keys, best)
		for k := range after[best] {
			preds[k]--
		}
	}
	for _, k := range keys {
		row := GridRow{Label: fmtMinutes(k.minute), Minute: k.minute, Cells: make([]Cell, len(dates))}
		if k.nth > 0 {
			// The second pass of a repeated wall time: say which it is.
			for _, c := range cells[k] {
				row.Label += " (2nd, " + walltime.Offset(c.Start.In(loc)) + ")"
				break
			}
		}
		for i := range row.Cells {
			row.Cells[i].Slot = -1
		}
		for d, c := range cells[k] {
			row.Cells[order[d]] = c
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}
