package meet

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

func pollInputFrom(r *http.Request) PollInput {
	f := r.PostForm
	return PollInput{
		Title: f.Get("title"), Description: f.Get("description"),
		StartDate: f.Get("start_date"), EndDate: f.Get("end_date"),
		DayStart: f.Get("day_start"), DayEnd: f.Get("day_end"),
		TZ: f.Get("tz"), Deadline: f.Get("deadline"), Duration: f.Get("duration"),
	}
}

// pollNew shows the empty form, with sensible defaults: the next seven days,
// 09:00 to 17:00, in the viewer's zone (the cookie; without one the page
// script puts the browser's zone in the form).
func (a *App) pollNew(w http.ResponseWriter, r *http.Request) {
	in := PollInput{DayStart: "09:00", DayEnd: "17:00", TZ: "UTC", Duration: "60"}
	if z := zoneCookie(r); z != "" {
		in.TZ = z
	}
	today := a.Now().In(mustLoc(in.TZ))
	in.StartDate, in.EndDate = today.Format(time.DateOnly), today.AddDate(0, 0, 6).Format(time.DateOnly)
	a.Site.Render(w, r, http.StatusOK, PollFormPage(a, "New poll", "/meet/polls", in, nil))
}

// pollCreate creates the poll; on success the organizer lands on the admin
// page, whose private link they keep.
func (a *App) pollCreate(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<20); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	in := pollInputFrom(r)
	p, err := a.svc.CreatePoll(r.Context(), in)
	if errs.KindOf(err) == errs.Invalid {
		a.Site.Render(w, r, http.StatusUnprocessableEntity, PollFormPage(a, "New poll", "/meet/polls", in, errs.As(err).Fields))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	rememberPoll(w, r, p)
	a.redirect(w, r, adminURL(p)+"?created=1")
}

// pollUpdate saves the organizer's edit (Service.UpdatePoll). An edit that
// takes answers away comes back with who loses what, and only "Save anyway"
// (which confirms exactly that loss) writes it.
func (a *App) pollUpdate(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<20); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	in := pollInputFrom(r)
	ed, err := a.svc.UpdatePoll(r.Context(), adminKey(r), in, r.PostForm.Get("confirm"))
	switch {
	case err == nil:
		saved := "?saved=1"
		if len(ed.Lost) > 0 {
			saved += "&removed=" + strconv.Itoa(len(ed.Lost))
		}
		a.redirect(w, r, adminURL(ed.Poll)+saved)
	case ed != nil && errs.KindOf(err) == errs.Invalid:
		a.Site.Render(w, r, http.StatusUnprocessableEntity, PollEditPage(a, ed.Poll, in, errs.As(err).Fields, nil))
	case ed != nil && errors.Is(err, ErrEditLoses):
		zone, loc := a.zone(w, r, ed.Poll)
		a.Site.Render(w, r, http.StatusConflict, PollEditPage(a, ed.Poll, in, nil, describeLoss(ed.Lost, ed.People, zone, loc)))
	default:
		a.Site.Error(w, r, err)
	}
}

// pollDelete removes the poll for good.
func (a *App) pollDelete(w http.ResponseWriter, r *http.Request) {
	k := adminKey(r)
	if err := a.svc.DeletePoll(r.Context(), k); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	setMyPolls(w, r, forgetPoll(myPolls(r), k.Poll))
	a.redirect(w, r, "/meet/?deleted=1")
}

// pollDuplicate makes a new poll with the same settings and no answers.
func (a *App) pollDuplicate(w http.ResponseWriter, r *http.Request) {
	np, err := a.svc.DuplicatePoll(r.Context(), adminKey(r))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	rememberPoll(w, r, np)
	a.redirect(w, r, adminURL(np)+"?created=1")
}

// pollReopen undoes a close.
func (a *App) pollReopen(w http.ResponseWriter, r *http.Request) {
	p, err := a.svc.ReopenPoll(r.Context(), adminKey(r))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(p))
}
