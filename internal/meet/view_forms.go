package meet

import (
	"fmt"
	"time"

	"github.com/a-h/templ"

	"github.com/tutti-dev/tutti/internal/walltime"
)

// Helpers of the forms and pages: meeting lengths, quarter-hour clocks,
// the close form's dates and the heat map's width.

// durationChoices are the meeting lengths the forms offer, in minutes (any
// multiple of 15 up to a day is accepted).
var durationChoices = []int{15, 30, 45, 60, 75, 90, 120, 150, 180, 210, 240, 300, 360, 420, 480, 540, 600, 720, 1440}

// durationOptions is durationChoices with the current value added if missing.
func durationOptions(current string) []int {
	d, ok := parseDuration(current)
	m := int(d / time.Minute)
	out := make([]int, 0, len(durationChoices)+1)
	for _, c := range durationChoices {
		if ok && m > 0 && m < c && (len(out) == 0 || out[len(out)-1] < m) {
			out = append(out, m)
		}
		out = append(out, c)
	}
	return out
}

// durationLabel is "15 min", "1 h", "1 h 30 min" or "1 day".
func durationLabel(d time.Duration) string {
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 24 && m == 0:
		return "1 day"
	case h == 0:
		return fmt.Sprintf("%d min", m)
	case m == 0:
		return fmt.Sprintf("%d h", h)
	}
	return fmt.Sprintf("%d h %d min", h, m)
}

func minutesLabel(m int) string { return durationLabel(time.Duration(m) * time.Minute) }

// clockOptions are the quarter hours "00:00".."23:45" (from "00:15" to
// "24:00" for the end of a window), with value first if it is not one of
// them, so that what was typed is kept.
func clockOptions(value string, untilMidnight bool) []string {
	from, to := 0, 24*60-15
	if untilMidnight {
		from, to = 15, 24*60
	}
	out := make([]string, 0, 97)
	if m, ok := parseClock(value, untilMidnight); (!ok || m < from || m > to) && value != "" {
		out = append(out, value)
	}
	for m := from; m <= to; m += 15 {
		out = append(out, fmtMinutes(m))
	}
	return out
}

// closeDateMin and closeDateMax bound the close form's date picker: the
// poll's first and last dates in the zone the page is shown in.
func closeDateMin(av *adminView) string {
	first, _ := av.Poll.Range()
	return first.In(av.View.Loc).Format(time.DateOnly)
}

func closeDateMax(av *adminView) string {
	_, last := av.Poll.Range()
	return last.Add(-Slot).In(av.View.Loc).Format(time.DateOnly)
}

// clockValue is value as the clock options spell it ("9:00" is "09:00").
func clockValue(value string, untilMidnight bool) string {
	if m, ok := parseClock(value, untilMidnight); ok {
		return fmtMinutes(m)
	}
	return value
}

// clockLabel is the wall-clock time of t in loc, with its UTC offset where
// that time occurs twice (fmtClock), as in "starting any time 02:00 (UTC+2)".
func clockLabel(t time.Time, loc *time.Location) string { return walltime.Clock(t, loc, "15:04") }

// heatWidth lets the heat map fill its card, up to about 8rem a day.
func heatWidth(days int) templ.SafeCSS { return templ.SafeCSS(fmt.Sprintf("--days:%d", days)) }
