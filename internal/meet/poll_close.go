package meet

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"

	"github.com/tutti-dev/tutti/internal/web"
)

// CloseInput is the organizer's "close the poll on" form as typed.
type CloseInput struct {
	Choice   string // the RFC 3339 start of a proposed best time, or "other"
	Date     string // another time: YYYY-MM-DD in TZ
	Time     string // another time: HH:MM in TZ
	TZ       string // the zone the admin page showed its times in
	Duration string // minutes; empty: the poll's duration
}

// Validate returns the meeting the organizer chose: a start that is one of the
// poll's slots, and a length such that the whole meeting is made of the poll's
// consecutive slots (the same rule as the best times). Keys of the messages:
// start, duration.
func (in CloseInput) Validate(p *Poll) (start, end time.Time, fields map[string]string) {
	fields = map[string]string{}
	d := p.Duration()
	if strings.TrimSpace(in.Duration) != "" {
		var ok bool
		if d, ok = parseDuration(in.Duration); !ok {
			fields["duration"] = "Pick how long the meeting lasts: 15 minutes to a day, on the quarter hour."
		}
	}
	if c := strings.TrimSpace(in.Choice); c != "" && c != "other" {
		t, err := time.Parse(time.RFC3339, c)
		if err != nil {
			fields["start"] = "Pick one of the proposed times, or another time."
			return start, end, fields
		}
		start = t.UTC()
	} else {
		loc, err := time.LoadLocation(in.TZ)
		if err != nil || in.TZ == "" || in.TZ == "Local" {
			if loc, err = p.Location(); err != nil {
				loc = time.UTC
			}
		}
		day, err := time.Parse(time.DateOnly, strings.TrimSpace(in.Date))
		m, ok := parseClock(in.Time, false)
		if err != nil || !ok {
			fields["start"] = "Give the start as a date and a time on the quarter hour."
			return start, end, fields
		}
		y, mo, dd := day.Date()
		start = wallTime(y, mo, dd, m, loc).UTC()
	}
	if len(fields) > 0 {
		return start, end, fields
	}
	end = start.Add(d)
	slots := p.Slots()
	if slotIndex(slots, start) < 0 {
		fields["start"] = "That start is not inside the poll's dates and daily hours."
	} else if p.CheckRange(start, end) != nil {
		fields["duration"] = fmt.Sprintf("A meeting of %s starting then runs past the poll's daily hours: pick an earlier start or a shorter meeting.", durationLabel(d))
	}
	return start, end, fields
}

// pollClose records the chosen meeting, any start and length the poll holds;
// the poll then shows the decision and offers an .ics file. A bad choice
// re-renders the admin page with the message, and writes nothing.
func (a *App) pollClose(w http.ResponseWriter, r *http.Request) {
	p, err := a.adminPoll(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if err := web.ParseForm(r, 1<<16); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	f := r.PostForm
	in := CloseInput{Choice: f.Get("choice"), Date: f.Get("date"), Time: f.Get("time"), TZ: f.Get("tz"), Duration: f.Get("duration")}
	start, end, fields := in.Validate(p)
	if len(fields) > 0 {
		a.renderAdmin(w, r, p, http.StatusUnprocessableEntity, func(av *adminView) {
			av.Close, av.CloseFields = in, fields
		})
		return
	}
	v, err := a.store.ClosePoll(r.Context(), p.ID, &start, &end)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.raise(p.ID, v, p.Deadline)
	a.redirect(w, r, adminURL(p)+"?closed=1")
}

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

// clockLabel is the wall-clock time of t in loc, as the grid labels rows.
func clockLabel(t time.Time, loc *time.Location) string { return t.In(loc).Format("15:04") }

// heatWidth lets the heat map fill its card, up to about 8rem a day.
func heatWidth(days int) templ.SafeCSS { return templ.SafeCSS(fmt.Sprintf("--days:%d", days)) }
