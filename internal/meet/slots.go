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

// The rule for a range of wall-clock times (a poll's daily window on each
// of its dates, a timeframe typed as a date and two times, in any zone):
//
// A date d and times a–b in a zone are exactly the instants at which the
// clock there shows date d and a time from a up to, not including, b
// (24:00 is the end of d). Each end is read by walltime's rule (a repeated
// time its first pass, a skipped one the instant the clock jumps to), and
// nothing between them whose clock shows a time outside a–b belongs:
//
//   - Where the clock jumps forward, the skipped times are not in the range:
//     New York's 01:00–04:00 on 2027-03-14 is 2 hours.
//   - Where it is set back, the times it shows twice are in the range twice,
//     and only those: 00:00–03:00 in New York on 2026-11-01 is 4 hours, but a
//     range that begins or ends inside the repeated hour keeps none of the
//     other pass's times outside it, so it can come in two pieces. On
//     Santiago's 2027-04-03, when 23:00–24:00 happens twice, 23:45–24:00 is
//     two quarter hours an hour apart (23:45 −03 and 23:45 −04), not the 75
//     minutes between them; a timeframe typed so is stored as those two
//     pieces, and no meeting longer than 15 minutes fits such a window.
//
// A meeting (a best time, the time a poll is closed on) is a run of the
// poll's consecutive slots, so it never takes in an instant whose clock
// shows a time outside the daily window. It runs from one date into the
// next only where nothing outside the window lies between: a window ending
// at 24:00 when the next date's window starts at 00:00, or when the clock
// jumps over all of the next date's times before the window starts (in
// Santiago, where 00:00–01:00 of 2026-09-06 is skipped, a window
// 00:30–24:00 runs on from 23:45 Saturday to 01:00 Sunday without a break).

// Slots returns the UTC start of every 15-minute slot of the poll: for each
// date from StartDate to EndDate, the daily window DayStart to DayEnd in the
// poll's zone by the rule above (wallSlots). The result is strictly
// increasing.
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
		out = wallSlots(out, d, p.DayStart, p.DayEnd, loc)
	}
	return dedupe(out)
}

// maxSetBack bounds how far any zone sets its clock back at once (two
// hours at most in the zone database).
const maxSetBack = 3 * time.Hour

// wallSlots appends to out the UTC starts of the 15-minute slots whose wall
// clock in loc shows date d (its Y-M-D) and a time in [a, b) minutes, by the
// rule above, in order. The times are on the quarter hour, and so are the
// zones' transitions (Lord Howe's 30 minutes too), so that a slot lies
// wholly inside the range or wholly outside.
func wallSlots(out []time.Time, d time.Time, a, b int, loc *time.Location) []time.Time {
	lo, _ := walltime.On(d, a, loc)
	hi, _ := walltime.On(d, b, loc)
	// No instant before lo shows a time in [a, b) of d (lo is a's first
	// pass, or when the clock jumps past it); after hi, only if the clock
	// is set back within maxSetBack of hi.
	if _, end := lo.ZoneBounds(); end.IsZero() || end.Sub(hi) > maxSetBack {
		for t := lo; t.Before(hi); t = t.Add(Slot) {
			out = append(out, t.UTC())
		}
		return out
	}
	y, mo, day := d.Date()
	for t := lo; t.Before(hi.Add(maxSetBack)); t = t.Add(Slot) {
		w := t.In(loc)
		if wy, wm, wd := w.Date(); wy != y || wm != mo || wd != day {
			continue
		}
		if m := w.Hour()*60 + w.Minute(); m >= a && m < b {
			out = append(out, t.UTC())
		}
	}
	return out
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
