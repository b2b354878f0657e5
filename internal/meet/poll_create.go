package meet

import (
	"errors"
	"net/http"
	"strconv"
	"time"

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

// pollCreate validates the form; on success the organizer lands on the admin
// page, whose private link they keep.
func (a *App) pollCreate(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 1<<20); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	in := pollInputFrom(r)
	p, fields := in.Validate(a.Now())
	if len(fields) > 0 {
		a.Site.Render(w, r, http.StatusUnprocessableEntity, PollFormPage(a, "New poll", "/meet/polls", in, fields))
		return
	}
	p.ID, p.AdminToken = token(16), token(24)
	if err := a.store.CreatePoll(r.Context(), &p); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	rememberPoll(w, r, &p)
	a.redirect(w, r, adminURL(&p)+"?created=1")
}

// pollUpdate saves the organizer's edit. Answers keep their instants and are
// clipped to the new dates, daily hours and zone; if that takes anything away,
// the form comes back with who loses what, and only "Save anyway" (which
// confirms exactly that loss) writes it.
func (a *App) pollUpdate(w http.ResponseWriter, r *http.Request) {
	p, err := a.adminPoll(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if err := web.ParseForm(r, 1<<20); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	in := pollInputFrom(r)
	np, fields := in.Validate(a.Now())
	if len(fields) > 0 {
		a.Site.Render(w, r, http.StatusUnprocessableEntity, PollEditPage(a, p, in, fields, nil))
		return
	}
	np.ID, np.AdminToken = p.ID, p.AdminToken
	v, lost, err := a.store.UpdatePoll(r.Context(), &np, r.PostForm.Get("confirm"))
	if errors.Is(err, ErrEditLoses) {
		people, err := a.store.Participants(r.Context(), p.ID)
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		zone, loc := a.zone(w, r, p)
		a.Site.Render(w, r, http.StatusConflict, PollEditPage(a, p, in, nil, describeLoss(lost, people, zone, loc)))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.committed(p.ID, v, np.Deadline, "poll")
	saved := "?saved=1"
	if len(lost) > 0 {
		saved += "&removed=" + strconv.Itoa(len(lost))
	}
	a.redirect(w, r, adminURL(p)+saved)
}

// pollDelete removes the poll for good.
func (a *App) pollDelete(w http.ResponseWriter, r *http.Request) {
	p, err := a.adminPoll(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if err := a.store.DeletePoll(r.Context(), p.ID); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.forget(p.ID)
	a.publish(p.ID, "poll")
	setMyPolls(w, r, forgetPoll(myPolls(r), p.ID))
	a.redirect(w, r, "/meet/?deleted=1")
}

// pollDuplicate makes a new poll with the same settings and no answers.
func (a *App) pollDuplicate(w http.ResponseWriter, r *http.Request) {
	p, err := a.adminPoll(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	np := *p
	np.ID, np.AdminToken = token(16), token(24)
	np.Title = truncateRunes("Copy of "+p.Title, MaxTitle)
	np.ClosedStart, np.ClosedEnd = nil, nil
	if np.Deadline != nil && !np.Deadline.After(a.Now()) {
		np.Deadline = nil
	}
	if err := a.store.CreatePoll(r.Context(), &np); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	rememberPoll(w, r, &np)
	a.redirect(w, r, adminURL(&np)+"?created=1")
}

// pollReopen undoes a close.
func (a *App) pollReopen(w http.ResponseWriter, r *http.Request) {
	p, err := a.adminPoll(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	v, err := a.store.ClosePoll(r.Context(), p.ID, nil, nil)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.committed(p.ID, v, p.Deadline, "poll")
	a.redirect(w, r, adminURL(p))
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}
