package meet

import (
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/tutti-dev/tutti/internal/walltime"
)

// Location is the poll's zone.
func (p *Poll) Location() (*time.Location, error) {
	loc, err := walltime.Location(p.TZ)
	if err != nil || p.TZ == "" || p.TZ == "Local" {
		return nil, fmt.Errorf("meet: zone %q: unknown", p.TZ)
	}
	return loc, nil
}

// Slots returns the UTC start of every 15-minute slot of the poll: each date
// from StartDate to EndDate, the instants whose wall clock in the poll's zone
// lies in the daily window DayStart to DayEnd. Both ends go through WallTime
// (walltime.go): on a day whose clock jumps forward the window loses the
// skipped times and starts when the clock jumps if its start was skipped; on
// a day whose clock is set back a window spanning the repeated hour has both
// passes of it. The result is strictly increasing.
func (p *Poll) Slots() []time.Time {
	loc, err := p.Location()
	if err != nil {
		return nil
	}
	first, err1 := time.Parse(time.DateOnly, p.StartDate)
	last, err2 := time.Parse(time.DateOnly, p.EndDate)
	if err1 != nil || err2 != nil || last.Before(first) || p.DayStart < 0 || p.DayEnd > 24*60 || p.DayStart >= p.DayEnd {
		return nil
	}
	var out []time.Time
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		start, _ := walltime.On(d, p.DayStart, loc)
		end, _ := walltime.On(d, p.DayEnd, loc)
		for t := start; t.Before(end); t = t.Add(Slot) {
			out = append(out, t.UTC())
		}
	}
	return dedupe(out)
}

func dedupe(ts []time.Time) []time.Time {
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	out := ts[:0]
	for i, t := range ts {
		if i == 0 || !t.Equal(out[len(out)-1]) {
			out = append(out, t)
		}
	}
	return out
}

// slotIndex returns the index of the slot starting at t, or -1.
func slotIndex(slots []time.Time, t time.Time) int {
	i := sort.Search(len(slots), func(i int) bool { return !slots[i].Before(t) })
	if i < len(slots) && slots[i].Equal(t) {
		return i
	}
	return -1
}

// CheckRange returns nil if [start, end) is a non-empty run of the poll's
// consecutive slots.
func (p *Poll) CheckRange(start, end time.Time) error {
	if !start.Before(end) {
		return errors.New("the end must be after the start")
	}
	slots := p.Slots()
	i := slotIndex(slots, start)
	if i < 0 {
		return errors.New("the start is not inside the poll's dates and daily hours")
	}
	for t := start; t.Before(end); t = t.Add(Slot) {
		if i >= len(slots) || !slots[i].Equal(t) {
			return errors.New("the time is not inside the poll's dates and daily hours")
		}
		i++
	}
	if !start.Add(end.Sub(start) / Slot * Slot).Equal(end) {
		return errors.New("times must be on the quarter hour")
	}
	return nil
}

// Range returns the start of the first slot and the end of the last.
func (p *Poll) Range() (first, last time.Time) {
	s := p.Slots()
	if len(s) == 0 {
		return time.Time{}, time.Time{}
	}
	return s[0], s[len(s)-1].Add(Slot)
}
