package meet

import (
	"bytes"
	"errors"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/emersion/go-ical"
	"github.com/teambition/rrule-go"
)

// EventICS is the closed poll's chosen time as an iCalendar file.
func EventICS(p *Poll, start, end time.Time, url string, now time.Time) []byte {
	cal := ical.NewCalendar()
	cal.Props.SetText(ical.PropVersion, "2.0")
	cal.Props.SetText(ical.PropProductID, "-//tutti//meet//EN")
	cal.Props.SetText(ical.PropCalendarScale, "GREGORIAN")
	ev := ical.NewEvent()
	ev.Props.SetText(ical.PropUID, p.ID+"@meet.tutti")
	ev.Props.SetDateTime(ical.PropDateTimeStamp, now.UTC())
	ev.Props.SetDateTime(ical.PropDateTimeStart, start.UTC())
	ev.Props.SetDateTime(ical.PropDateTimeEnd, end.UTC())
	ev.Props.SetText(ical.PropSummary, p.Title)
	desc := url
	if p.Description != "" {
		desc = p.Description + "\n\n" + url
	}
	ev.Props.SetText(ical.PropDescription, desc)
	if url != "" {
		u := ical.NewProp(ical.PropURL)
		u.SetValueType(ical.ValueURI)
		u.Value = url
		ev.Props.Set(u)
	}
	cal.Children = append(cal.Children, ev.Component)
	var buf bytes.Buffer
	if err := ical.NewEncoder(&buf).Encode(cal); err != nil {
		return nil // the fields above are always valid
	}
	return buf.Bytes()
}

// ErrBadCalendar is the user's message for a file that is not a calendar.
var ErrBadCalendar = errors.New("This file is not a valid calendar (.ics).")

// maxOccurrences bounds the expansion of one recurring event.
const maxOccurrences = 5000

// ParseBusy reads the busy times of a calendar between from and to: events
// with DTSTART/DTEND or DURATION (all-day events cover their dates), in their
// TZID zones, recurring ones expanded (RRULE, RDATE, EXDATE, and RECURRENCE-ID
// overrides); cancelled and transparent (free) events are skipped. The
// intervals are clipped to [from, to], merged, and at most max are returned.
func ParseBusy(r io.Reader, from, to time.Time, max int) (_ []Busy, err error) {
	// go-ical's decoder panics on some malformed lines (found by
	// FuzzParseBusy): a bad upload is the user's error, not a crash.
	defer func() {
		if recover() != nil {
			err = ErrBadCalendar
		}
	}()
	cal, err := ical.NewDecoder(r).Decode()
	if err != nil || cal == nil || cal.Name != ical.CompCalendar {
		return nil, ErrBadCalendar
	}
	events := cal.Events()
	// Overrides: UID -> original start -> replaced.
	overridden := map[string]map[int64]bool{}
	for _, ev := range events {
		if rid := ev.Props.Get(ical.PropRecurrenceID); rid != nil {
			t, err := propTime(rid, time.UTC)
			if err != nil {
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
		if skipEvent(&ev) {
			continue
		}
		start, end, err := eventSpan(&ev)
		if err != nil {
			return nil, ErrBadCalendar
		}
		length := end.Sub(start)
		starts := []time.Time{start}
		if ev.Props.Get(ical.PropRecurrenceRule) != nil && ev.Props.Get(ical.PropRecurrenceID) == nil {
			starts, err = occurrences(&ev, start, from.Add(-length), to)
			if err != nil {
				return nil, ErrBadCalendar
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

func skipEvent(ev *ical.Event) bool {
	if s, _ := ev.Props.Text(ical.PropStatus); strings.EqualFold(s, "CANCELLED") {
		return true
	}
	if t, _ := ev.Props.Text(ical.PropTransparency); strings.EqualFold(t, "TRANSPARENT") {
		return true
	}
	return false
}

// eventSpan is the event's first start and end; an all-day event spans its
// dates in UTC (the viewer's own midnight is unknown here).
func eventSpan(ev *ical.Event) (time.Time, time.Time, error) {
	sp := ev.Props.Get(ical.PropDateTimeStart)
	if sp == nil {
		return time.Time{}, time.Time{}, errors.New("no DTSTART")
	}
	start, err := propTime(sp, time.UTC)
	if err != nil {
		return start, start, err
	}
	var end time.Time
	if ep := ev.Props.Get(ical.PropDateTimeEnd); ep != nil {
		if end, err = propTime(ep, time.UTC); err != nil {
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

// propTime reads a date or date-time, mapping Windows zone names to IANA.
func propTime(p *ical.Prop, loc *time.Location) (time.Time, error) {
	if tzid := p.Params.Get(ical.PropTimezoneID); tzid != "" {
		if iana, ok := windowsZones[tzid]; ok {
			q := *p
			q.Params = ical.Params{}
			for k, v := range p.Params {
				q.Params[k] = v
			}
			q.Params.Set(ical.PropTimezoneID, iana)
			return q.DateTime(loc)
		}
	}
	return p.DateTime(loc)
}

// occurrences expands a recurring event's starts within [from, to].
func occurrences(ev *ical.Event, start, from, to time.Time) ([]time.Time, error) {
	opt, err := ev.Props.RecurrenceRule()
	if err != nil || opt == nil {
		return nil, errors.New("bad RRULE")
	}
	opt.Dtstart = start
	rule, err := rrule.NewRRule(*opt)
	if err != nil {
		return nil, err
	}
	set := &rrule.Set{}
	set.RRule(rule)
	for _, name := range []string{ical.PropExceptionDates, ical.PropRecurrenceDates} {
		for _, p := range ev.Props.Values(name) {
			for _, v := range strings.Split(p.Value, ",") {
				q := p
				q.Value = strings.TrimSpace(v)
				t, err := propTime(&q, start.Location())
				if err != nil {
					continue
				}
				if name == ical.PropExceptionDates {
					set.ExDate(t)
				} else {
					set.RDate(t)
				}
			}
		}
	}
	var out []time.Time
	next := set.Iterator()
	for t, ok := next(); ok && !t.After(to) && len(out) < maxOccurrences; t, ok = next() {
		if !t.Before(from) {
			out = append(out, t)
		}
	}
	return out, nil
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
