package meet

import (
	"fmt"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/walltime"
)

// Formatting helpers for the templates.

// fmtRange is a range of instants in loc; a time whose wall clock occurs
// twice there (a repeated hour) carries its UTC offset, so that the two
// passes of the hour read differently.
func fmtRange(start, end time.Time, loc *time.Location) string {
	s, e := start.In(loc), end.In(loc)
	if s.YearDay() == e.YearDay() && s.Year() == e.Year() || e.Sub(s) <= 24*time.Hour && e.Hour() == 0 && e.Minute() == 0 {
		return walltime.Clock(s, loc, "Mon 2 Jan, 15:04") + "–" + walltime.Clock(e, loc, "15:04")
	}
	return walltime.Clock(s, loc, "Mon 2 Jan, 15:04") + " – " + walltime.Clock(e, loc, "Mon 2 Jan, 15:04")
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
