package meet

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/walltime"
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
			fields["duration"] = msgDuration
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
		loc, err := walltime.Location(in.TZ)
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
		w, _ := walltime.On(day, m, loc)
		start = w.UTC()
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

// pollClose records the chosen meeting (Service.ClosePoll); the poll then
// shows the decision and offers an .ics file. A bad choice re-renders the
// admin page with the message, and writes nothing.
func (a *App) pollClose(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<16); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	f := r.PostForm
	in := CloseInput{Choice: f.Get("choice"), Date: f.Get("date"), Time: f.Get("time"), TZ: f.Get("tz"), Duration: f.Get("duration")}
	p, err := a.svc.ClosePoll(r.Context(), adminKey(r), in)
	switch {
	case err == nil:
		a.redirect(w, r, adminURL(p)+"?closed=1")
	case p != nil && errs.KindOf(err) == errs.Invalid:
		a.renderAdmin(w, r, http.StatusUnprocessableEntity, func(av *adminView) {
			av.Close, av.CloseFields = in, errs.As(err).Fields
		})
	default:
		a.Site.Error(w, r, err)
	}
}
