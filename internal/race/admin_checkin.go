package race

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/text"
)

// The race-day check-in list: volunteers at the bib pickup find a runner
// by name or bib (on a phone) and mark the bib picked up, or undo it.

func checkinURL(slug string, eventID int64) string {
	return adminURL(slug) + "/events/" + strconv.FormatInt(eventID, 10) + "/checkin"
}

func (a *App) checkinShow(w http.ResponseWriter, r *http.Request) {
	d, e := a.directedEvent(w, r)
	if d == nil {
		return
	}
	msg := ""
	if bib, err := strconv.Atoi(r.URL.Query().Get("bib")); err == nil && bib > 0 {
		switch r.URL.Query().Get("saved") {
		case "in":
			msg = "Bib " + strconv.Itoa(bib) + " picked up."
		case "out":
			msg = "Bib " + strconv.Itoa(bib) + " is marked not picked up again."
		}
	}
	a.renderCheckin(w, r, http.StatusOK, d.User, d.Race, e, text.Query(r.URL.Query().Get("q")), msg, "")
}

func (a *App) renderCheckin(w http.ResponseWriter, r *http.Request, status int, u *auth.User, race *Race, e *Event, q, msg, problem string) {
	regs, next, err := a.entrantsList(r, e.ID, q)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	in, all, err := a.store.CheckInCounts(r.Context(), e.ID)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, status, CheckinPage(a, u, race, e, regs, q, next, in, all, msg, problem))
}

// checkinPost marks a bib picked up (or, with undo, not), then shows the
// list again with the volunteer's search. A conflict (picked up already,
// cancelled) is shown on the list, not on an error page.
func (a *App) checkinPost(w http.ResponseWriter, r *http.Request) {
	if !a.form(w, r) {
		return
	}
	d := directedOf(r)
	id, err := pathInt(r, "rid")
	if err != nil {
		a.Site.Error(w, r, errs.ErrNotFound)
		return
	}
	undo := r.PostForm.Get("undo") == "1"
	q := text.Query(r.PostForm.Get("q"))
	reg, err := a.svc.CheckIn(r.Context(), d, id, undo)
	var e *errs.Error
	if errors.As(err, &e) && e.Kind == errs.Conflict {
		if ev, ok := d.Race.Event(reg.EventID); ok {
			a.renderCheckin(w, r, http.StatusConflict, d.User, d.Race, ev, q, "", e.Message)
			return
		}
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	v := url.Values{"saved": {"in"}, "bib": {strconv.Itoa(reg.Bib)}}
	if undo {
		v.Set("saved", "out")
	}
	if q != "" {
		v.Set("q", q)
	}
	a.redirect(w, r, checkinURL(d.Race.Slug, reg.EventID)+"?"+v.Encode())
}
