package meet

import (
	"bytes"
	"io"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// The handlers of a participant's private link, and the organizer's removal
// of a participant: each parses the request, calls one Service method (which
// checks the token and the lock) and redirects, or renders the page again
// with the field messages of an error that has them.

// failOwn answers a failed change from a participant's own page. A refusal
// the person can act on or should read, bad input (field messages) or a
// Conflict (the poll locked meanwhile, a limit reached), shows the page
// again with the message, on field if the error names none, and the form
// as typed (form, comment), even on a poll now locked, so that nothing
// typed is lost; any other error is the error page.
func (a *App) failOwn(w http.ResponseWriter, r *http.Request, err error, field string, form map[string]string, comment string) {
	e := errs.As(err)
	fields := e.Fields
	switch {
	case len(fields) > 0:
	case e.Kind == errs.Conflict && e.Message != "":
		fields = map[string]string{field: e.Message}
	default:
		a.Site.Error(w, r, err)
		return
	}
	d, derr := a.svc.OwnPage(r.Context(), ownKey(r))
	if derr != nil {
		a.Site.Error(w, r, derr)
		return
	}
	status := http.StatusUnprocessableEntity
	if e.Kind == errs.Conflict {
		status = http.StatusConflict
	}
	a.renderParticipant(w, r, d, status, fields, form, comment)
}

// timeframeAdd is the no-JavaScript way to give availability: a date, a start
// and end time in the viewer's zone, and a tier.
func (a *App) timeframeAdd(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<16); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	f := r.PostForm
	in := TimeframeInput{Date: f.Get("date"), Start: f.Get("start"), End: f.Get("end"), Tier: f.Get("tier"), TZ: a.zoneName(w, r)}
	if tz := f.Get("tz"); tz != "" {
		in.TZ = tz
	}
	p, pt, err := a.svc.AddTimeframe(r.Context(), ownKey(r), in)
	if err != nil {
		form := map[string]string{"date": in.Date, "start": in.Start, "end": in.End, "tier": in.Tier, "tz": in.TZ}
		a.failOwn(w, r, err, "date", form, "")
		return
	}
	a.redirect(w, r, ownURL(p.ID, pt)+"#availability")
}

func (a *App) timeframeDelete(w http.ResponseWriter, r *http.Request) {
	p, pt, err := a.svc.DeleteTimeframe(r.Context(), ownKey(r), pathID(r, "tf"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, ownURL(p.ID, pt)+"#availability")
}

// availabilityPut takes the painted grid as JSON and replaces the
// participant's availability; it answers JSON. The body is bounded by the
// route (availabilityBodyLimit): reading past it fails with a
// *http.MaxBytesError, which Site.Error answers 413.
func (a *App) availabilityPut(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	saved, err := a.svc.ReplaceAvailability(r.Context(), ownKey(r), body)
	if err != nil {
		a.Site.Error(w, r, err) // a problem; Invalid with a written message for bad input
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"timeframes":` + strconv.Itoa(saved.Timeframes) + `,"version":` + strconv.FormatInt(saved.Version, 10) + "}\n"))
}

func (a *App) commentAdd(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<16); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	body := r.PostForm.Get("body")
	p, pt, err := a.svc.AddComment(r.Context(), ownKey(r), body)
	if err != nil {
		a.failOwn(w, r, err, "body", nil, body)
		return
	}
	a.redirect(w, r, ownURL(p.ID, pt)+"#comments")
}

// busyImport reads an uploaded .ics calendar and keeps its busy times, shown
// greyed on the participant's own grid.
func (a *App) busyImport(w http.ResponseWriter, r *http.Request) {
	// The whole request is bounded by the route (busyBodyLimit): a calendar
	// of busy times at its own limit and the form around it.
	if err := web.ParseForm(r, 1<<20); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	var calendar *bytes.Buffer // nil: no file sent
	if file, _, err := r.FormFile("calendar"); err == nil {
		defer file.Close()
		calendar = new(bytes.Buffer)
		if _, err := calendar.ReadFrom(file); err != nil {
			a.Site.Error(w, r, err)
			return
		}
	}
	var in io.Reader
	if calendar != nil {
		in = calendar
	}
	p, pt, n, err := a.svc.ImportBusy(r.Context(), ownKey(r), in)
	if err != nil {
		a.failOwn(w, r, err, "calendar", nil, "")
		return
	}
	a.redirect(w, r, ownURL(p.ID, pt)+"?imported="+strconv.Itoa(n)+"#availability")
}

// participantLeave removes the participant (their own choice).
func (a *App) participantLeave(w http.ResponseWriter, r *http.Request) {
	p, err := a.svc.Leave(r.Context(), ownKey(r))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, pollURL(p))
}

// adminRemoveParticipant lets the organizer remove an entry.
func (a *App) adminRemoveParticipant(w http.ResponseWriter, r *http.Request) {
	p, err := a.svc.RemoveParticipant(r.Context(), adminKey(r), pathID(r, "pid"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(p)+"#participants")
}
