package meet

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/text"
	"github.com/tutti-dev/tutti/internal/walltime"
)

// PollInput is the poll form as typed.
type PollInput struct {
	Title, Description string
	StartDate, EndDate string // YYYY-MM-DD
	DayStart, DayEnd   string // HH:MM, on the quarter hour; DayEnd may be 24:00
	TZ                 string // IANA zone
	Deadline           string // YYYY-MM-DDTHH:MM in TZ, or empty
	Duration           string // the meeting's length in minutes; empty: one hour
}

// Validate checks the form and returns the poll's settings, or a message per
// field (keys: title, description, start_date, end_date, day_start, day_end,
// tz, deadline, duration).
func (in PollInput) Validate(now time.Time) (Poll, map[string]string) {
	errs := map[string]string{}
	var p Poll
	var msg string
	if p.Title, msg = titleField.Clean(in.Title); msg != "" {
		errs["title"] = msg
	}
	if p.Description, msg = descriptionField.Clean(in.Description); msg != "" {
		errs["description"] = msg
	}
	start, err1 := time.Parse(time.DateOnly, strings.TrimSpace(in.StartDate))
	end, err2 := time.Parse(time.DateOnly, strings.TrimSpace(in.EndDate))
	if err1 != nil {
		errs["start_date"] = "Give the first date as YYYY-MM-DD."
	}
	if err2 != nil {
		errs["end_date"] = "Give the last date as YYYY-MM-DD."
	}
	if err1 == nil && err2 == nil {
		switch {
		case end.Before(start):
			errs["end_date"] = "The end date must not be before the start date."
		case end.Sub(start) >= MaxDays*24*time.Hour:
			errs["end_date"] = fmt.Sprintf("A poll can span at most %d days.", MaxDays)
		case start.Year() < 2000 || end.Year() > 2200:
			errs["start_date"] = "Pick dates between 2000 and 2200."
		}
	}
	p.StartDate, p.EndDate = start.Format(time.DateOnly), end.Format(time.DateOnly)
	var ok1, ok2 bool
	p.DayStart, ok1 = parseClock(in.DayStart, false)
	p.DayEnd, ok2 = parseClock(in.DayEnd, true)
	if !ok1 {
		errs["day_start"] = "Give the daily start as HH:MM on the quarter hour."
	}
	if !ok2 {
		errs["day_end"] = "Give the daily end as HH:MM on the quarter hour (24:00 for midnight)."
	}
	if ok1 && ok2 && p.DayEnd <= p.DayStart {
		errs["day_end"] = "The daily end must be after the daily start."
	}
	p.TZ = strings.TrimSpace(in.TZ)
	if p.TZ == "" {
		p.TZ = "UTC"
	}
	loc, err := p.Location()
	if err != nil {
		errs["tz"] = "Pick a time zone from the list."
	}
	if d := strings.TrimSpace(in.Deadline); d != "" && loc != nil {
		t, err := parseLocalDateTime(d, loc)
		switch {
		case err != nil:
			errs["deadline"] = "Give the deadline as a date and time."
		case !t.After(now):
			errs["deadline"] = "The deadline must be in the future."
		default:
			t = t.UTC()
			p.Deadline = &t
		}
	}
	d, ok := parseDuration(in.Duration)
	if !ok {
		errs["duration"] = msgDuration
	}
	p.DurationMinutes = int(d / time.Minute)
	if len(errs) == 0 {
		slots := p.Slots()
		switch {
		case len(slots) == 0:
			errs["day_start"] = "This window has no time in it."
		case longestRun(slots) < d:
			errs["duration"] = "A meeting this long does not fit in the daily hours: make it shorter or the hours longer."
		}
	}
	return p, errs
}

// Input is the poll's settings as the edit form shows them.
func (p *Poll) Input() PollInput {
	in := PollInput{Title: p.Title, Description: p.Description, StartDate: p.StartDate, EndDate: p.EndDate,
		DayStart: fmtMinutes(p.DayStart), DayEnd: fmtMinutes(p.DayEnd), TZ: p.TZ,
		Duration: strconv.Itoa(int(p.Duration() / time.Minute))}
	if p.Deadline != nil {
		if loc, err := p.Location(); err == nil {
			in.Deadline = p.Deadline.In(loc).Format("2006-01-02T15:04")
		}
	}
	return in
}

// msgDuration is the message of a meeting length parseDuration refuses.
const msgDuration = "Pick how long the meeting lasts: 15 minutes to a day, on the quarter hour."

// parseDuration reads a meeting length in minutes (empty: DefaultDuration):
// a multiple of 15 from MinDuration to MaxDuration.
func parseDuration(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultDuration, true
	}
	m, err := strconv.Atoi(s)
	d := time.Duration(m) * time.Minute
	if err != nil || d < MinDuration || d > MaxDuration || d%Slot != 0 {
		return DefaultDuration, false
	}
	return d, true
}

// longestRun is the length of the longest run of consecutive slots: the
// longest meeting the poll can hold.
func longestRun(slots []time.Time) time.Duration {
	best, run := 0, 0
	for i := range slots {
		if i > 0 && slots[i].Equal(slots[i-1].Add(Slot)) {
			run++
		} else {
			run = 1
		}
		best = max(best, run)
	}
	return time.Duration(best) * Slot
}

// parseLocalDateTime reads YYYY-MM-DDTHH:MM (a datetime-local field) as a
// wall-clock time in loc, by WallTime's rule.
func parseLocalDateTime(s string, loc *time.Location) (time.Time, error) {
	t, err := time.Parse("2006-01-02T15:04", s)
	if err != nil {
		return time.Time{}, err
	}
	w, _ := walltime.On(t, t.Hour()*60+t.Minute(), loc)
	return w, nil
}

// parseClock reads HH:MM on the quarter hour as minutes after midnight;
// 24:00 only if allowMidnight.
func parseClock(s string, allowMidnight bool) (int, bool) {
	m, ok := walltime.ParseClock(s)
	if !ok || m%15 != 0 || m == 24*60 && !allowMidnight {
		return 0, false
	}
	return m, true
}

// The free-text fields of meet follow the shared text rules (package text).
var (
	titleField       = text.Field{Name: "The title", Min: 1, Max: MaxTitle, Empty: "Give the poll a title."}
	descriptionField = text.Field{Name: "The description", Max: MaxDescription, Multiline: true}
	nameField        = text.Field{Name: "Your name", Min: 1, Max: MaxName, Empty: "Tell us your name."}
	commentField     = text.Field{Name: "The comment", Min: 1, Max: MaxComment, Multiline: true, Empty: "Write something first."}
)

// ValidName returns the cleaned name (runs of spaces made one), or a message.
func ValidName(s string) (string, string) {
	s, msg := nameField.Clean(s)
	if msg != "" {
		return "", msg
	}
	return strings.Join(strings.Fields(s), " "), ""
}

// ValidComment returns the cleaned comment, or a message.
func ValidComment(s string) (string, string) {
	return commentField.Clean(s)
}

// ParseTimeframe reads the timeframe form: a date and times in zone tz (the
// viewer's), and a tier. The typed range is the instants the rule of
// slots.go gives it: one timeframe, or two where it begins or ends inside
// an hour the clock repeats (each a run of the poll's slots). Keys of the
// messages: date, start, end, tier.
func ParseTimeframe(p *Poll, date, start, end, tier, tz string) ([]Timeframe, map[string]string) {
	errs := map[string]string{}
	var tf Timeframe
	loc, err := walltime.Location(tz)
	if err != nil || tz == "" || tz == "Local" {
		if loc, err = p.Location(); err != nil {
			loc = time.UTC
		}
	}
	d, err := time.Parse(time.DateOnly, strings.TrimSpace(date))
	if err != nil {
		errs["date"] = "Pick a date."
	}
	s, ok1 := parseClock(start, false)
	e, ok2 := parseClock(end, true)
	if !ok1 {
		errs["start"] = "Give the start as HH:MM on the quarter hour."
	}
	if !ok2 {
		errs["end"] = "Give the end as HH:MM on the quarter hour."
	}
	switch strings.TrimSpace(tier) {
	case "1", "2", "3":
		tf.Tier = int(strings.TrimSpace(tier)[0] - '0')
	default:
		errs["tier"] = "Pick a tier: 1 preferred, 2 fine, 3 if need be."
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if s >= e {
		errs["end"] = "The end must be after the start."
		return nil, errs
	}
	slots := wallSlots(nil, d, s, e, loc)
	if len(slots) == 0 {
		// Both ends in the same skipped stretch: nothing is left of it.
		t0, _ := walltime.On(d, s, loc)
		errs["start"] = fmt.Sprintf("%s: %s–%s does not exist that day.", walltime.SkipNote(t0, loc), fmtMinutes(s), fmtMinutes(e))
		return nil, errs
	}
	var out []Timeframe
	for i, t := range slots {
		if i > 0 && t.Equal(slots[i-1].Add(Slot)) {
			out[len(out)-1].End = t.Add(Slot)
			continue
		}
		out = append(out, Timeframe{Start: t, End: t.Add(Slot), Tier: tf.Tier})
	}
	for _, t := range out {
		if p.CheckRange(t.Start, t.End) != nil {
			errs["date"] = "That time is outside the poll's dates and daily hours."
			return nil, errs
		}
	}
	return out, errs
}

// slotsError is bad painted-grid input: an Invalid error for the field "slots".
func slotsError(msg string) error { return errs.Fields(map[string]string{"slots": msg}) }

// AvailabilityJSON is what the painted grid sends: every painted slot.
type AvailabilityJSON struct {
	Slots []struct {
		Start time.Time `json:"start"`
		Tier  int       `json:"tier"`
	} `json:"slots"`
}

// ParseAvailability reads the painted grid and merges neighbouring slots of
// the same tier into timeframes, sorted by start. Bad input is an Invalid
// error with a written message for the field "slots".
func ParseAvailability(p *Poll, body []byte) ([]Timeframe, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var in AvailabilityJSON
	if err := dec.Decode(&in); err != nil {
		return nil, slotsError("The availability could not be read as JSON.")
	}
	if dec.More() {
		return nil, slotsError("The availability must be a single JSON object.")
	}
	slots := p.Slots()
	tiers := make(map[int]int, len(in.Slots))
	for _, s := range in.Slots {
		i := slotIndex(slots, s.Start.UTC())
		switch {
		case i < 0:
			return nil, slotsError(s.Start.UTC().Format(time.RFC3339) + " is not a time of this poll.")
		case s.Tier < 1 || s.Tier > 3:
			return nil, slotsError("Each tier must be 1, 2 or 3.")
		}
		if _, dup := tiers[i]; dup {
			return nil, slotsError(s.Start.UTC().Format(time.RFC3339) + " is given twice.")
		}
		tiers[i] = s.Tier
	}
	var out []Timeframe
	for i, s := range slots {
		tier, ok := tiers[i]
		if !ok {
			continue
		}
		if n := len(out); n > 0 && out[n-1].End.Equal(s) && out[n-1].Tier == tier {
			out[n-1].End = s.Add(Slot)
			continue
		}
		out = append(out, Timeframe{Start: s, End: s.Add(Slot), Tier: tier})
	}
	if len(out) > MaxTimeframes {
		return nil, slotsError(fmt.Sprintf("Paint at most %d separate timeframes.", MaxTimeframes))
	}
	return out, nil
}
