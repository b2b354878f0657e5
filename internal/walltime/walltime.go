// Package walltime is the one rule by which tutti turns a wall-clock time (a date and a time of
// day in a zone, as typed in a form or set as a poll's daily window) into an
// instant. Every app converts through At (or Parse, for a form's date and
// time); nothing else calls time.Date or time.ParseInLocation with a zone.
//
//   - A time that occurs once is that instant.
//   - A repeated time (the clock is set back, so the wall clock shows it
//     twice) is its FIRST occurrence, the one with the larger UTC offset.
//   - A skipped time (the clock jumps forward over it) is the instant the
//     clock jumps to: in New York on 2027-03-14 every time from 02:00 to
//     02:59 is 03:00 EDT (07:00 UTC).
//   - 24:00 is the next day's 00:00, through the same rule.
//
// Why this rule: a range of wall times then means exactly the instants whose
// wall clock lies in it. A daily window 02:45-04:45 on the day Berlin skips
// 02:00-03:00 starts at 03:00, when the clock first shows a time inside the
// window, not at 03:45; a window or timeframe that ends in a skipped hour ends
// when the clock jumps (so New York's "01:30-02:00" on 2027-03-14 is 30
// minutes); a timeframe lying wholly inside the skipped hour ("02:15-02:45")
// is empty and is refused with a message saying why, rather than stored as
// times nobody typed. Starting a range at the first occurrence of a repeated
// time keeps both passes of the repeated hour inside a window that spans it
// (Lord Howe's "01:30-02:00" on 2027-04-04 is an hour). This is also how
// RFC 5545 and Temporal's "compatible" disambiguation read a repeated time;
// for a skipped one they keep the old offset (02:15 becomes 03:15), which
// would start the Berlin window above at 03:45.
//
// Go's time.Date does not say which instant it returns in either case (see
// its documentation), so At finds every candidate itself from the zone's
// transitions.
package walltime

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Kind says how a wall-clock time maps onto instants.
type Kind int

const (
	Exact    Kind = iota // occurs once
	Repeated             // occurs twice (or more); At gives the first
	Skipped              // never occurs; At gives the instant the clock jumps to
)

// At returns the instant at which the clock in loc shows minute of day
// (0 to 24*60) on the date y-mo-d, by the rule above, and which case applied.
func At(y int, mo time.Month, d, minute int, loc *time.Location) (time.Time, Kind) {
	if minute == 24*60 {
		d, minute = d+1, 0
	}
	// wall is the wall-clock reading as seconds since the epoch, as if in UTC;
	// an instant u shows it when u + offset(u) == wall.
	wall := time.Date(y, mo, d, 0, minute, 0, 0, time.UTC).Unix()
	// Fast path: far (36 hours) from any transition, one candidate.
	_, off := time.Unix(wall, 0).In(loc).Zone()
	if t := time.Unix(wall-int64(off), 0).In(loc); zoneOffset(t) == off && farFromTransition(t, 36*time.Hour) {
		return t, Exact
	}
	var found []int64
	var jump int64
	var jumped bool
	// Every offset in use lies within ±18 hours, so the instants showing
	// wall lie in [wall-18h, wall+18h]: walk the zone's periods over it.
	u := wall - 18*3600
	prevOff, havePrev := 0, false
	for u <= wall+18*3600 {
		t := time.Unix(u, 0).In(loc)
		_, off := t.Zone()
		start, end := t.ZoneBounds()
		if havePrev && !start.IsZero() {
			// A transition at start from prevOff to off: the wall clock
			// jumps from start+prevOff to start+off.
			if s := start.Unix(); int64(prevOff)+s <= wall && wall < s+int64(off) {
				jump, jumped = s, true
			}
		}
		if c := wall - int64(off); (start.IsZero() || c >= start.Unix()) && (end.IsZero() || c < end.Unix()) {
			if len(found) == 0 || found[len(found)-1] != c {
				found = append(found, c)
			}
		}
		if end.IsZero() {
			break
		}
		u, prevOff, havePrev = end.Unix(), off, true
	}
	switch {
	case len(found) == 1:
		return time.Unix(found[0], 0).In(loc), Exact
	case len(found) > 1:
		first := found[0]
		for _, c := range found[1:] {
			first = min(first, c)
		}
		return time.Unix(first, 0).In(loc), Repeated
	case jumped:
		return time.Unix(jump, 0).In(loc), Skipped
	}
	// Unreachable for a real zone; keep Go's answer rather than panic.
	return time.Date(y, mo, d, 0, minute, 0, 0, loc), Exact
}

// farFromTransition reports whether loc's offset is the same for margin
// either side of t.
func farFromTransition(t time.Time, margin time.Duration) bool {
	start, end := t.ZoneBounds()
	return (start.IsZero() || t.Sub(start) > margin) && (end.IsZero() || end.Sub(t) > margin)
}

// On is At for a date given as a time.Time (its Y-M-D only).
func On(date time.Time, minute int, loc *time.Location) (time.Time, Kind) {
	y, m, d := date.Date()
	return At(y, m, d, minute, loc)
}

// Ambiguous reports whether t's wall clock in loc is shown at another
// instant too, so that the wall clock alone does not say which it is.
func Ambiguous(t time.Time, loc *time.Location) bool {
	l := t.In(loc)
	if farFromTransition(l, 36*time.Hour) {
		return false
	}
	_, k := At(l.Year(), l.Month(), l.Day(), l.Hour()*60+l.Minute(), loc)
	return k == Repeated
}

// Offset is a UTC offset as people read it: "UTC+2", "UTC−5", "UTC+10:30".
func Offset(t time.Time) string {
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign, off = "−", -off
	}
	if m := off / 60 % 60; m != 0 {
		return fmt.Sprintf("UTC%s%d:%02d", sign, off/3600, m)
	}
	return fmt.Sprintf("UTC%s%d", sign, off/3600)
}

// Clock is t's wall clock in loc in layout, followed by its UTC offset
// when that wall clock occurs twice (a repeated hour), so that the two read
// differently: "01:30 (UTC−4)" and "01:30 (UTC−5)".
func Clock(t time.Time, loc *time.Location, layout string) string {
	l := t.In(loc)
	s := l.Format(layout)
	if Ambiguous(t, loc) {
		s += " (" + Offset(l) + ")"
	}
	return s
}

func zoneOffset(t time.Time) int {
	_, off := t.Zone()
	return off
}

// Parse reads a form's date ("2006-01-02") and time of day ("15:04", or
// "24:00") as the instant the clock in loc shows it, by At's rule, and which
// case applied. A malformed date or time is an error.
func Parse(date, clock string, loc *time.Location) (time.Time, Kind, error) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(date))
	if err != nil {
		return time.Time{}, Exact, fmt.Errorf("walltime: date %q: want YYYY-MM-DD", date)
	}
	minute, ok := ParseClock(clock)
	if !ok {
		return time.Time{}, Exact, fmt.Errorf("walltime: time %q: want HH:MM", clock)
	}
	t, k := On(d, minute, loc)
	return t, k, nil
}

// ParseClock reads a time of day "H:MM" or "HH:MM" (00:00 to 24:00) as
// minutes since midnight.
func ParseClock(s string) (int, bool) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || len(h) < 1 || len(h) > 2 || len(m) != 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || mm < 0 || mm > 59 || hh > 24 || hh == 24 && mm != 0 {
		return 0, false
	}
	return hh*60 + mm, true
}

// Zones are the zones offered in a zone picker, roughly west to east
// within each continent.
var Zones = []string{
	"UTC", "Europe/London", "Europe/Lisbon", "Europe/Paris", "Europe/Berlin", "Europe/Madrid", "Europe/Rome",
	"Europe/Amsterdam", "Europe/Stockholm", "Europe/Warsaw", "Europe/Athens", "Europe/Helsinki", "Europe/Istanbul",
	"Europe/Moscow", "Africa/Lagos", "Africa/Cairo", "Africa/Johannesburg", "Africa/Nairobi", "Asia/Dubai",
	"Asia/Karachi", "Asia/Kolkata", "Asia/Dhaka", "Asia/Bangkok", "Asia/Jakarta", "Asia/Singapore", "Asia/Shanghai",
	"Asia/Hong_Kong", "Asia/Tokyo", "Asia/Seoul", "Australia/Perth", "Australia/Adelaide", "Australia/Sydney",
	"Pacific/Auckland", "Pacific/Honolulu", "America/Anchorage", "America/Los_Angeles", "America/Denver",
	"America/Phoenix", "America/Chicago", "America/Mexico_City", "America/New_York", "America/Toronto",
	"America/Bogota", "America/Lima", "America/Santiago", "America/Sao_Paulo", "America/Argentina/Buenos_Aires",
	"America/Halifax", "America/St_Johns",
}

// ZoneChoices is Zones with the given ones first if missing.
func ZoneChoices(extra ...string) []string {
	out := make([]string, 0, len(Zones)+len(extra))
	seen := map[string]bool{}
	for _, z := range append(extra, Zones...) {
		if z != "" && !seen[z] {
			seen[z] = true
			out = append(out, z)
		}
	}
	return out
}

// zones holds each zone Location loaded. Only names that load are kept, so
// the map is bounded by the zone database, whatever names requests bring.
var zones sync.Map // name → *time.Location

// Location is time.LoadLocation with each zone read once: LoadLocation
// opens, reads and parses the zone's file every time, and a page that
// shows an event's times in its zone would do that on every request (3 %
// of the server's core in a race opening's profile).
func Location(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}

// SkipNote says why a skipped wall-clock time does not exist, from jump,
// the instant At gave for it (the instant the clock jumps to): "On Sun 14
// Mar 2027 the clocks in America/New_York go forward from 02:00 to 03:00".
// Forms tell it rather than store a time nobody typed.
func SkipNote(jump time.Time, loc *time.Location) string {
	to := jump.In(loc)
	from := jump.In(time.FixedZone("", zoneOffset(jump.Add(-time.Second).In(loc))))
	return fmt.Sprintf("On %s the clocks in %s go forward from %s to %s",
		to.Format("Mon 2 Jan 2006"), loc, from.Format("15:04"), to.Format("15:04"))
}
