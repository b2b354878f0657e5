package meet

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/walltime"
	"github.com/tutti-dev/tutti/internal/web"
)

// participantView is a participant's page: public (read-only) or their own.
type participantView struct {
	Poll        *Poll
	Who         *Participant
	Own         bool // the private edit page
	Zone        string
	Loc         *time.Location
	Locked      bool
	Timeframes  []Timeframe
	Busy        []Busy
	Grid        Grid
	Slots       int
	MineJSON    string // {"slots":[[slotIndex,tier],...],"busy":[slotIndex,...]}
	Comments    []Comment
	Fields      map[string]string // form errors
	Form        map[string]string // form values kept on error
	CommentText string
	Refused     bool // a refused post: its forms are shown as typed, even on a locked poll
	Flash       string
	Base        string // scheme and host of full links
}

// participantAdd adds the viewer to the poll by name (Service.Join) and
// sends them to their private edit link.
func (a *App) participantAdd(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<16); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	id := r.PathValue("id")
	pt, err := a.svc.Join(r.Context(), id, r.PostForm.Get("name"))
	switch k := errs.KindOf(err); {
	case err == nil:
		a.redirect(w, r, ownURL(id, pt)+"?joined=1")
		return
	case k != errs.Invalid && k != errs.Conflict:
		a.Site.Error(w, r, err)
		return
	}
	// The form again with its message, on the poll's page (a name refused
	// for a poll that does not exist is that poll's 404).
	d, derr := a.store.PollPage(r.Context(), id, db.Cursor{}, PageSize)
	if derr != nil {
		a.Site.Error(w, r, derr)
		return
	}
	zone, _ := a.zone(w, r, d.Poll)
	v := a.buildPollView(d, zone, pageQuery{})
	a.Site.Render(w, r, http.StatusUnprocessableEntity, PollPageWithJoinError(a, v, r.PostForm.Get("name"), errs.As(err).Message))
}

// participantShow is a participant's public page.
func (a *App) participantShow(w http.ResponseWriter, r *http.Request) {
	d, err := a.svc.PublicPage(r.Context(), r.PathValue("id"), pathID(r, "pid"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.renderParticipant(w, r, d, http.StatusOK, nil, nil, "")
}

// participantEdit is a participant's private edit page.
func (a *App) participantEdit(w http.ResponseWriter, r *http.Request) {
	d, err := a.svc.OwnPage(r.Context(), ownKey(r))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.renderParticipant(w, r, d, http.StatusOK, nil, nil, "")
}

// renderParticipant shows a participant's page; status, fields and form carry
// a failed form's errors and values.
func (a *App) renderParticipant(w http.ResponseWriter, r *http.Request, d *ParticipantData,
	status int, fields, form map[string]string, comment string) {
	p := d.Poll
	v := &participantView{Poll: p, Who: d.Who, Own: d.Own, Locked: d.Locked, Timeframes: d.Timeframes, Busy: d.Busy,
		Comments: d.Comments, Fields: fields, Form: form, CommentText: comment, Refused: len(fields) > 0}
	v.Zone, v.Loc = a.zone(w, r, p)
	v.Base = a.base(r)
	slots := p.Slots()
	v.Slots = len(slots)
	v.Grid = BuildGrid(slots, v.Loc)
	if d.Own {
		v.MineJSON = mineJSON(slots, v.Timeframes, v.Busy)
	}
	a.Site.Render(w, r, status, ParticipantPage(a, v))
}

// mineJSON tells the grid script which slots are painted at which tier and
// which are busy in the imported calendar.
func mineJSON(slots []time.Time, tfs []Timeframe, busy []Busy) string {
	mine := [][2]int{}
	for i, t := range Tally(slots, tfs) {
		if len(t.Avail) > 0 {
			mine = append(mine, [2]int{i, t.Avail[0].Tier})
		}
	}
	busySlots := []int{}
	for i, s := range slots {
		for _, b := range busy {
			if s.Before(b.End) && s.Add(Slot).After(b.Start) {
				busySlots = append(busySlots, i)
				break
			}
		}
	}
	b, _ := json.Marshal(map[string]any{"slots": mine, "busy": busySlots})
	return string(b)
}

// formZone is the zone of the timeframe form's times: the one they were
// typed in when the form comes back refused, else the page's.
func formZone(v *participantView) string {
	if z := v.Form["tz"]; z != "" {
		if _, err := walltime.Location(z); err == nil && z != "Local" {
			return z
		}
	}
	return v.Zone
}

// currentURL is the page's own path, for the zone switcher.
func currentURL(v *participantView) string {
	if v.Own {
		return ownURL(v.Poll.ID, v.Who)
	}
	return publicParticipantURL(v.Poll, v.Who.ID)
}

// tiersJSON lists, per painted slot of a read-only grid, its tier.
func tiersJSON(v *participantView) string {
	if v.Own {
		return ""
	}
	out := [][2]int{}
	for i, t := range Tally(v.Poll.Slots(), v.Timeframes) {
		if len(t.Avail) > 0 {
			out = append(out, [2]int{i, t.Avail[0].Tier})
		}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
