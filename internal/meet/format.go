package meet

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/walltime"
)

// Formatting helpers for the templates.

// fmtRange is a range of instants in loc; a time whose wall clock occurs
// twice there (a repeated hour) carries its UTC offset, so that the two
// passes of the hour read differently. The end is written without its date
// only when it falls on the start's date ("Sat 28 Mar, 09:00–17:00"), or is
// the midnight that ends that date, written 24:00 as in the poll's daily
// window ("Sat 28 Mar, 23:00–24:00"); otherwise both carry their dates,
// whatever the hours between: after a 23-hour day, 23:00 to the 00:00 two
// dates later is under 24 hours, and after a 25-hour one a whole day is more.
// An end at which the clock changes reads as the clock showed it until then.
func fmtRange(start, end time.Time, loc *time.Location) string {
	s, e := start.In(loc), endIn(end, loc)
	endClock := func(layout string) string { return walltime.Clock(end, loc, layout) }
	if offsetOf(e) != offsetOf(end.In(loc)) {
		endClock = func(layout string) string {
			if offsetOf(e) > offsetOf(end.In(loc)) {
				return e.Format(layout) + " (" + walltime.Offset(e) + ")"
			}
			return e.Format(layout)
		}
	}
	if sameDate(s, e) {
		return walltime.Clock(s, loc, "Mon 2 Jan, 15:04") + "–" + endClock("15:04")
	}
	if e.Hour() == 0 && e.Minute() == 0 && sameDate(nextDate(s), e) {
		return walltime.Clock(s, loc, "Mon 2 Jan, 15:04") + "–" + strings.Replace(endClock("15:04"), "00:00", "24:00", 1)
	}
	return walltime.Clock(s, loc, "Mon 2 Jan, 15:04") + " – " + endClock("Mon 2 Jan, 15:04")
}

// endIn is the end of a range in loc. Where the clock changes at that very
// instant, it is read as the clock showed it up to then, in the offset
// before the change: New York's 01:30 to the spring jump ends at 02:00, not
// 03:00; Santiago's Saturday ending at the jump over Sunday's 00:00 ends at
// 24:00, not 01:00 Sunday; the first pass of a repeated hour ends at its
// own end (fmtRange then adds the offset, as the clock shows the time again).
func endIn(end time.Time, loc *time.Location) time.Time {
	e := end.In(loc)
	if _, before := end.Add(-time.Second).In(loc).Zone(); before != offsetOf(e) {
		return end.In(time.FixedZone(e.Add(-time.Second).Format("MST"), before))
	}
	return e
}

// fmtStarts is the range of start times first to last in loc, as in "2 h,
// starting any time 09:00–10:00": the clock times alone when both fall on
// one date, else each with its date.
func fmtStarts(first, last time.Time, loc *time.Location) string {
	if sameDate(first.In(loc), last.In(loc)) {
		return clockLabel(first, loc) + "–" + clockLabel(last, loc)
	}
	return walltime.Clock(first, loc, "Mon 2 Jan, 15:04") + " – " + walltime.Clock(last, loc, "Mon 2 Jan, 15:04")
}

// sameDate reports whether a and b show the same date (each in its own
// location).
func sameDate(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// nextDate is midnight UTC of the date after t's date (only its date counts:
// compare it with sameDate).
func nextDate(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d+1, 0, 0, 0, 0, time.UTC)
}

func fmtDate(s string) string {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return s
	}
	return t.Format("Mon 2 Jan 2006")
}

func fmtMinutes(m int) string { return fmt.Sprintf("%02d:%02d", m/60, m%60) }

func tierName(t int) string {
	switch t {
	case TierPreferred:
		return "preferred"
	case TierFine:
		return "fine"
	case TierIfNeed:
		return "if need be"
	}
	return "?"
}

// heatClass is the colour class of a cell with count of total available.
func heatClass(count, total int) string {
	if count == 0 || total == 0 {
		return "h0"
	}
	return "h" + strconv.Itoa(1+(count*9)/total)
}

func itoa(n int) string  { return strconv.Itoa(n) }
func i64(n int64) string { return strconv.FormatInt(n, 10) }
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func boolStr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func mustLoc(zone string) *time.Location {
	if loc, err := walltime.Location(zone); err == nil {
		return loc
	}
	return time.UTC
}

func cellLabel(c Cell, v *pollView) string {
	t := v.Tally[c.Slot]
	return walltime.Clock(c.Start, v.Loc, "Mon 2 Jan 15:04") + ": " + strconv.Itoa(t.Count) + " of " + strconv.Itoa(v.Total) + " free"
}

func rfc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// windowIn is the poll's daily window as the clock in zone shows it, when
// zone is not the poll's: "= 03:00–06:00 America/New_York", or "" if the
// zones agree. Where the two zones change clocks on different dates within
// the poll, it says so instead of showing one day's hours for all.
func windowIn(p *Poll, zone string) string {
	if zone == "" || zone == p.TZ {
		return ""
	}
	ploc, err := p.Location()
	if err != nil {
		return ""
	}
	loc := mustLoc(zone)
	first, err1 := time.Parse(time.DateOnly, p.StartDate)
	last, err2 := time.Parse(time.DateOnly, p.EndDate)
	if err1 != nil || err2 != nil {
		return ""
	}
	var win string
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		s, _ := walltime.On(d, p.DayStart, ploc)
		e, _ := walltime.On(d, p.DayEnd, ploc)
		if !s.Before(e) {
			continue
		}
		end := e.In(loc).Format("15:04")
		if end == "00:00" {
			end = "24:00"
		}
		w := s.In(loc).Format("15:04") + "–" + end
		if win != "" && w != win {
			return "(in " + zone + " the hours shift with a daylight-saving change: see the grid)"
		}
		win = w
	}
	if win == "" || win == fmtMinutes(p.DayStart)+"–"+fmtMinutes(p.DayEnd) {
		return ""
	}
	return "= " + win + " " + zone
}

// offsetOf is t's UTC offset in seconds.
func offsetOf(t time.Time) int {
	_, off := t.Zone()
	return off
}
