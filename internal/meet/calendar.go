package meet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/emersion/go-ical"

	"github.com/tutti-dev/tutti/internal/walltime"
)

// CalendarError is an .ics file the import refuses; its message is for the
// user.
type CalendarError struct{ msg string }

func (e *CalendarError) Error() string { return e.msg }

// The import's refusals.
var (
	ErrBadCalendar        = &CalendarError{"This file is not a valid calendar (.ics)."}
	ErrCalendarTooBig     = &CalendarError{"This calendar is too large to import (at most 1 MB): export only the weeks of the poll."}
	ErrCalendarTooComplex = &CalendarError{"This calendar has too many events or events that repeat too often (every few seconds or minutes) to import: export only the weeks of the poll."}
)

// ParseBusy reads the busy times of a calendar between from and to: events
// with DTSTART/DTEND or DURATION (all-day events cover their dates), in their
// TZID zones, recurring ones expanded (RRULE, RDATE, EXDATE, and RECURRENCE-ID
// overrides); cancelled and transparent (free) events are skipped. The
// intervals are clipped to [from, to], merged, and at most max are returned.
//
// The work is bounded whatever the file (see recur.go): its size, the zones
// it names, and a budget of work units for its events and their
// occurrences; a file beyond them is refused with ErrCalendarTooBig or
// ErrCalendarTooComplex, and ctx ends the work early with its error.
func ParseBusy(ctx context.Context, r io.Reader, from, to time.Time, max int) (_ []Busy, err error) {
	data, err := io.ReadAll(io.LimitReader(r, maxCalendarBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxCalendarBytes {
		return nil, ErrCalendarTooBig
	}
	if c, sep := shape(data); c > maxComponents || sep > maxSeparators {
		return nil, ErrCalendarTooComplex
	}
	// go-ical's decoder panics on some malformed lines (found by
	// FuzzParseBusy): a bad upload is the user's error, not a crash.
	defer func() {
		if recover() != nil {
			err = ErrBadCalendar
		}
	}()
	cal, err := ical.NewDecoder(bytes.NewReader(data)).Decode()
	if err != nil || cal == nil || cal.Name != ical.CompCalendar {
		return nil, ErrBadCalendar
	}
	w := &calendarWork{ctx: ctx, left: calendarBudget}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	zones := zoneCache{}
	events := cal.Events()
	// Overrides: UID -> original start -> replaced.
	overridden := map[string]map[int64]bool{}
	for _, ev := range events {
		if err := w.spend(unitsPerEvent); err != nil {
			return nil, err
		}
		if rid := ev.Props.Get(ical.PropRecurrenceID); rid != nil {
			t, err := zones.propTime(rid, time.UTC)
			if err != nil {
				if err == ErrCalendarTooComplex {
					return nil, err
				}
				continue
			}
			uid, _ := ev.Props.Text(ical.PropUID)
			if overridden[uid] == nil {
				overridden[uid] = map[int64]bool{}
			}
			overridden[uid][t.Unix()] = true
		}
	}
	var out []Busy
	for _, ev := range events {
		if err := w.spend(1); err != nil {
			return nil, err
		}
		if skipEvent(&ev) {
			continue
		}
		start, end, err := zones.eventSpan(&ev)
		if err != nil {
			return nil, calendarErr(err)
		}
		length := end.Sub(start)
		starts := []time.Time{start}
		if ev.Props.Get(ical.PropRecurrenceRule) != nil && ev.Props.Get(ical.PropRecurrenceID) == nil {
			starts, err = zones.occurrences(w, &ev, start, from.Add(-length), to)
			if err != nil {
				return nil, calendarErr(err)
			}
			uid, _ := ev.Props.Text(ical.PropUID)
			kept := starts[:0]
			for _, s := range starts {
				if !overridden[uid][s.Unix()] {
					kept = append(kept, s)
				}
			}
			starts = kept
		}
		for _, s := range starts {
			e := s.Add(length)
			if e.After(s) && e.After(from) && s.Before(to) {
				out = append(out, Busy{Start: maxTime(s, from).UTC(), End: minTime(e, to).UTC()})
			}
		}
	}
	out = mergeBusy(out)
	if len(out) > max {
		out = out[:max]
	}
	return out, nil
}

// shape counts what go-ical's decoder spends its time on, before it runs:
// components (every BEGIN line, folded or not, is a line that starts with B;
// other properties rarely do) and separators (line breaks, semicolons and
// commas: properties, parameters and their values).
func shape(data []byte) (components, separators int) {
	if len(data) > 0 && (data[0] == 'B' || data[0] == 'b') {
		components++
	}
	for i, c := range data {
		switch c {
		case '\n':
			separators++
			if i+1 < len(data) && (data[i+1] == 'B' || data[i+1] == 'b') {
				components++
			}
		case ';', ',':
			separators++
		}
	}
	return components, separators
}

// calendarErr keeps the import's own refusals and the context's errors;
// anything else is a file that is not a valid calendar.
func calendarErr(err error) error {
	var ce *CalendarError
	if errors.As(err, &ce) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return ErrBadCalendar
}

func skipEvent(ev *ical.Event) bool {
	if s, _ := ev.Props.Text(ical.PropStatus); strings.EqualFold(s, "CANCELLED") {
		return true
	}
	if t, _ := ev.Props.Text(ical.PropTransparency); strings.EqualFold(t, "TRANSPARENT") {
		return true
	}
	return false
}

// zoneCache resolves each TZID of a file once, a Windows name too, and at
// most maxZones of them: a file naming thousands costs no more.
type zoneCache map[string]*time.Location

func (zc zoneCache) load(tzid string) (*time.Location, error) {
	if iana, ok := windowsZones[tzid]; ok {
		tzid = iana
	}
	if loc, ok := zc[tzid]; ok {
		if loc == nil {
			return nil, errors.New("unknown zone")
		}
		return loc, nil
	}
	if len(zc) >= maxZones {
		return nil, ErrCalendarTooComplex
	}
	loc, err := walltime.Location(tzid)
	zc[tzid] = loc
	return loc, err
}

// eventSpan is the event's first start and end; an all-day event spans its
// dates in UTC (the viewer's own midnight is unknown here).
func (zc zoneCache) eventSpan(ev *ical.Event) (time.Time, time.Time, error) {
	sp := ev.Props.Get(ical.PropDateTimeStart)
	if sp == nil {
		return time.Time{}, time.Time{}, errors.New("no DTSTART")
	}
	start, err := zc.propTime(sp, time.UTC)
	if err != nil {
		return start, start, err
	}
	var end time.Time
	if ep := ev.Props.Get(ical.PropDateTimeEnd); ep != nil {
		if end, err = zc.propTime(ep, time.UTC); err != nil {
			return start, start, err
		}
	} else if dp := ev.Props.Get(ical.PropDuration); dp != nil {
		d, err := dp.Duration()
		if err != nil {
			return start, start, err
		}
		end = start.Add(d)
	} else if sp.ValueType() == ical.ValueDate || len(sp.Value) == 8 {
		end = start.AddDate(0, 0, 1)
	} else {
		end = start
	}
	if end.Before(start) {
		return start, start, errors.New("end before start")
	}
	return start, end, nil
}

// propTime reads a date or date-time in its TZID zone (Windows zone names
// mapped to IANA), else in loc. It parses the value itself: go-ical's
// Prop.DateTime loads the zone from disk on every call.
func (zc zoneCache) propTime(p *ical.Prop, loc *time.Location) (time.Time, error) {
	v := p.Value
	if tzid := p.Params.Get(ical.PropTimezoneID); tzid != "" && len(v) == len("20060102T150405") {
		l, err := zc.load(tzid)
		if err != nil {
			return time.Time{}, err
		}
		loc = l
	}
	if vt := p.Params.Get(ical.ParamValue); vt != "" && vt != string(ical.ValueDate) && vt != string(ical.ValueDateTime) {
		return time.Time{}, errors.New("not a date")
	}
	return parseICalTime(v, loc)
}

var errBadTime = errors.New("bad date or date-time")

// parseICalTime reads DATE (20060102), local DATE-TIME (20060102T150405,
// in loc) and UTC DATE-TIME (20060102T150405Z) values.
func parseICalTime(v string, loc *time.Location) (time.Time, error) {
	num := func(s string) int {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return -1
			}
			n = n*10 + int(s[i]-'0')
		}
		return n
	}
	if len(v) != 8 && len(v) != 15 && (len(v) != 16 || v[15] != 'Z') {
		return time.Time{}, errBadTime
	}
	y, m, d := num(v[:4]), num(v[4:6]), num(v[6:8])
	if y < 0 || m < 1 || m > 12 || d < 1 || d > monthLen(y, m) {
		return time.Time{}, errBadTime
	}
	if len(v) == 8 {
		return time.Date(y, time.Month(m), d, 0, 0, 0, 0, loc), nil
	}
	h, mi, s := num(v[9:11]), num(v[11:13]), num(v[13:15])
	if v[8] != 'T' || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60 {
		return time.Time{}, errBadTime
	}
	if len(v) == 16 {
		loc = time.UTC
	}
	return time.Date(y, time.Month(m), d, h, mi, s, 0, loc), nil
}

// occurrences expands a recurring event's starts within [from, to].
func (zc zoneCache) occurrences(w *calendarWork, ev *ical.Event, start, from, to time.Time) ([]time.Time, error) {
	rp := ev.Props.Get(ical.PropRecurrenceRule)
	rule, err := newRecurRule(rp.Value, start)
	if err != nil {
		return nil, err
	}
	out, err := rule.expand(w, from, to)
	if err != nil {
		return nil, err
	}
	var exdates map[int64]bool
	for _, name := range []string{ical.PropExceptionDates, ical.PropRecurrenceDates} {
		for _, p := range ev.Props.Values(name) {
			vs := strings.Split(p.Value, ",")
			if err := w.spend(unitsPerValue * len(vs)); err != nil {
				return nil, err
			}
			for _, v := range vs {
				q := p
				q.Value = strings.TrimSpace(v)
				t, err := zc.propTime(&q, start.Location())
				if err != nil {
					if err == ErrCalendarTooComplex {
						return nil, err
					}
					continue
				}
				if name == ical.PropExceptionDates {
					if exdates == nil {
						exdates = map[int64]bool{}
					}
					exdates[t.Unix()] = true
				} else if !t.Before(from) && !t.After(to) {
					if w.occ++; w.occ > maxOccurrences {
						return nil, ErrCalendarTooComplex
					}
					out = append(out, t)
				}
			}
		}
	}
	kept := out[:0]
	for _, t := range out {
		if !exdates[t.Unix()] {
			kept = append(kept, t)
		}
	}
	return kept, nil
}

func mergeBusy(bs []Busy) []Busy {
	sort.Slice(bs, func(i, j int) bool { return bs[i].Start.Before(bs[j].Start) })
	var out []Busy
	for _, b := range bs {
		if n := len(out); n > 0 && !b.Start.After(out[n-1].End) {
			out[n-1].End = maxTime(out[n-1].End, b.End)
			continue
		}
		out = append(out, b)
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// windowsZones maps the Windows zone names Outlook exports to IANA zones.
var windowsZones = map[string]string{
	"UTC": "UTC", "GMT Standard Time": "Europe/London", "Greenwich Standard Time": "Atlantic/Reykjavik",
	"W. Europe Standard Time": "Europe/Berlin", "Central Europe Standard Time": "Europe/Budapest",
	"Romance Standard Time": "Europe/Paris", "Central European Standard Time": "Europe/Warsaw",
	"E. Europe Standard Time": "Europe/Chisinau", "FLE Standard Time": "Europe/Kiev", "GTB Standard Time": "Europe/Bucharest",
	"Russian Standard Time": "Europe/Moscow", "Turkey Standard Time": "Europe/Istanbul", "Israel Standard Time": "Asia/Jerusalem",
	"South Africa Standard Time": "Africa/Johannesburg", "Egypt Standard Time": "Africa/Cairo",
	"Arabian Standard Time": "Asia/Dubai", "India Standard Time": "Asia/Kolkata", "China Standard Time": "Asia/Shanghai",
	"Singapore Standard Time": "Asia/Singapore", "Tokyo Standard Time": "Asia/Tokyo", "Korea Standard Time": "Asia/Seoul",
	"AUS Eastern Standard Time": "Australia/Sydney", "New Zealand Standard Time": "Pacific/Auckland",
	"Eastern Standard Time": "America/New_York", "Central Standard Time": "America/Chicago",
	"Mountain Standard Time": "America/Denver", "US Mountain Standard Time": "America/Phoenix",
	"Pacific Standard Time": "America/Los_Angeles", "Alaskan Standard Time": "America/Anchorage",
	"Hawaiian Standard Time": "Pacific/Honolulu", "Atlantic Standard Time": "America/Halifax",
	"E. South America Standard Time": "America/Sao_Paulo", "Argentina Standard Time": "America/Argentina/Buenos_Aires",
	"SA Pacific Standard Time": "America/Bogota", "Central America Standard Time": "America/Guatemala",
}
