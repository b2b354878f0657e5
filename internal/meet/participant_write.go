package meet

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// ownWrite loads the poll and participant of a private link for a change,
// refusing once the poll is locked.
func (a *App) ownWrite(w http.ResponseWriter, r *http.Request) (*Poll, *Participant, bool) {
	p, pt, err := a.own(r)
	if err == nil && a.locked(p) {
		err = ErrLocked
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return nil, nil, false
	}
	return p, pt, true
}

// timeframeAdd is the no-JavaScript way to give availability: a date, a start
// and end time in the viewer's zone, and a tier.
func (a *App) timeframeAdd(w http.ResponseWriter, r *http.Request) {
	p, pt, ok := a.ownWrite(w, r)
	if !ok {
		return
	}
	if err := web.ParseForm(r, 1<<16); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	f := r.PostForm
	zone, _ := a.zone(w, r, p)
	if tz := f.Get("tz"); tz != "" {
		zone = tz
	}
	tf, fields := ParseTimeframe(p, f.Get("date"), f.Get("start"), f.Get("end"), f.Get("tier"), zone)
	if len(fields) == 0 {
		tf.ParticipantID = pt.ID
		v, err := a.store.AddTimeframe(r.Context(), p.ID, &tf)
		if err == nil {
			a.committed(p.ID, v, p.Deadline, "answers")
			a.redirect(w, r, ownURL(p, pt)+"#availability")
			return
		}
		if errs.KindOf(err) != errs.Conflict {
			a.Site.Error(w, r, err)
			return
		}
		fields = map[string]string{"date": errs.As(err).Message}
	}
	form := map[string]string{"date": f.Get("date"), "start": f.Get("start"), "end": f.Get("end"), "tier": f.Get("tier")}
	a.renderParticipant(w, r, p, pt, true, http.StatusUnprocessableEntity, fields, form, "")
}

func (a *App) timeframeDelete(w http.ResponseWriter, r *http.Request) {
	p, pt, ok := a.ownWrite(w, r)
	if !ok {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("tf"), 10, 64)
	if err != nil || id <= 0 {
		a.Site.NotFound(w, r)
		return
	}
	v, err := a.store.DeleteTimeframe(r.Context(), p.ID, pt.ID, id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.committed(p.ID, v, p.Deadline, "answers")
	a.redirect(w, r, ownURL(p, pt)+"#availability")
}

// availabilityPut takes the painted grid as JSON and replaces the
// participant's availability; it answers JSON.
func (a *App) availabilityPut(w http.ResponseWriter, r *http.Request) {
	p, pt, ok := a.ownWrite(w, r)
	if !ok {
		return
	}
	body, err := readJSON(r, 512<<10)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	tfs, err := ParseAvailability(p, body)
	if err != nil {
		a.Site.Error(w, r, err) // an Invalid error with a written message
		return
	}
	v, err := a.store.ReplaceAvailability(r.Context(), p.ID, pt.ID, tfs)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.committed(p.ID, v, p.Deadline, "answers")
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"timeframes":` + strconv.Itoa(len(tfs)) + `,"version":` + strconv.FormatInt(v, 10) + "}\n"))
}

func (a *App) commentAdd(w http.ResponseWriter, r *http.Request) {
	p, pt, ok := a.ownWrite(w, r)
	if !ok {
		return
	}
	if err := web.ParseForm(r, 1<<16); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	body, msg := ValidComment(r.PostForm.Get("body"))
	if msg != "" {
		a.renderParticipant(w, r, p, pt, true, http.StatusUnprocessableEntity, map[string]string{"body": msg}, nil, r.PostForm.Get("body"))
		return
	}
	c := Comment{ParticipantID: pt.ID, Body: body}
	v, err := a.store.AddComment(r.Context(), p.ID, &c)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.committed(p.ID, v, p.Deadline, "answers")
	a.redirect(w, r, ownURL(p, pt)+"#comments")
}

// busyImport reads an uploaded .ics calendar and keeps its busy times, shown
// greyed on the participant's own grid.
func (a *App) busyImport(w http.ResponseWriter, r *http.Request) {
	p, pt, err := a.own(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	// The whole request is bounded by the server's body limit (1 MiB by
	// default): ample for a calendar of busy times.
	if err := web.ParseForm(r, 1<<20); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	file, _, err := r.FormFile("calendar")
	if err != nil {
		a.renderParticipant(w, r, p, pt, true, http.StatusUnprocessableEntity, map[string]string{"calendar": "Choose an .ics file to import."}, nil, "")
		return
	}
	defer file.Close()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(file); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	from, to := p.Range()
	busy, err := ParseBusy(r.Context(), &buf, from, to, MaxBusy)
	if err != nil {
		var ce *CalendarError
		if !errors.As(err, &ce) {
			a.Site.Error(w, r, err)
			return
		}
		a.renderParticipant(w, r, p, pt, true, http.StatusUnprocessableEntity, map[string]string{"calendar": ce.Error()}, nil, "")
		return
	}
	if err := a.store.ReplaceBusy(r.Context(), pt.ID, busy); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, ownURL(p, pt)+"?imported="+strconv.Itoa(len(busy))+"#availability")
}

// participantLeave removes the participant (their own choice).
func (a *App) participantLeave(w http.ResponseWriter, r *http.Request) {
	p, pt, ok := a.ownWrite(w, r)
	if !ok {
		return
	}
	v, err := a.store.RemoveParticipant(r.Context(), p.ID, pt.ID)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.committed(p.ID, v, p.Deadline, "answers")
	a.redirect(w, r, pollURL(p))
}

// adminRemoveParticipant lets the organizer remove an entry.
func (a *App) adminRemoveParticipant(w http.ResponseWriter, r *http.Request) {
	p, err := a.adminPoll(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	pid, err := strconv.ParseInt(r.PathValue("pid"), 10, 64)
	if err != nil || pid <= 0 {
		a.Site.NotFound(w, r)
		return
	}
	v, err := a.store.RemoveParticipant(r.Context(), p.ID, pid)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.committed(p.ID, v, p.Deadline, "answers")
	a.redirect(w, r, adminURL(p)+"#participants")
}
