package race

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/errs"
)

// queryEvent is ?event= (or the form's event) as an id; 0 if absent.
func queryEvent(v string) int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// registerShow is the wizard's first page: the account (signed out) or the
// event (signed in).
func (a *App) registerShow(w http.ResponseWriter, r *http.Request) {
	race, err := a.svc.Race(r.Context(), r.PathValue("slug"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	ev := queryEvent(r.URL.Query().Get("event"))
	u := auth.UserFrom(r.Context())
	if u == nil {
		a.Site.Render(w, r, http.StatusOK, AccountPage(a, race, ev, "", auth.Signup{}, nil, ""))
		return
	}
	// Taking a ticket is not a change the runner makes: like a rate
	// limit's count, it only orders who goes first, so a GET may take it.
	if !a.admitted(w, r, race, u, ev) {
		return
	}
	a.Site.Render(w, r, http.StatusOK, EventChoicePage(a, u, race, ev, a.Now(), ""))
}

// registerAccount signs the runner in, or creates their account, and goes
// on to the event page.
func (a *App) registerAccount(w http.ResponseWriter, r *http.Request) {
	race, err := a.svc.Race(r.Context(), r.PathValue("slug"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if !a.form(w, r) {
		return
	}
	f := r.PostForm
	ev := queryEvent(f.Get("event"))
	next := raceURL(race.Slug) + "/register?event=" + strconv.FormatInt(ev, 10)
	switch f.Get("do") {
	case "login":
		_, err = a.Auth.Login(w, r, f.Get("login"), f.Get("password"))
		if e := errs.As(err); err != nil && e.Kind == errs.Unauthorized {
			a.Site.Render(w, r, http.StatusUnauthorized, AccountPage(a, race, ev, f.Get("login"), auth.Signup{}, map[string]string{"login": e.Message}, "login"))
			return
		}
	case "signup":
		in := auth.Signup{Username: f.Get("username"), Email: f.Get("email"), Password: f.Get("password")}
		_, err = a.Auth.SignupAndLogin(w, r, in)
		if fe := errs.FieldsOf(err); fe != nil {
			in.Password = ""
			a.Site.Render(w, r, http.StatusUnprocessableEntity, AccountPage(a, race, ev, "", in, fe, "signup"))
			return
		}
	default:
		err = errs.E(errs.BadRequest, "Sign in or create an account.")
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, next)
}

// signedInForm is the signed-in runner's POST to race {slug}, its form
// parsed; false after answering otherwise.
func (a *App) signedInForm(w http.ResponseWriter, r *http.Request) (*auth.User, *Race, bool) {
	u, ok := auth.RequireUser(w, r)
	if !ok || !a.form(w, r) {
		return nil, nil, false
	}
	race, err := a.svc.Race(r.Context(), r.PathValue("slug"))
	if err != nil {
		a.Site.Error(w, r, err)
		return nil, nil, false
	}
	return u, race, true
}

// registerStart holds a place in the chosen event and goes on to the
// details; a runner registered already goes to their confirmation.
func (a *App) registerStart(w http.ResponseWriter, r *http.Request) {
	u, race, ok := a.signedInForm(w, r)
	if !ok {
		return
	}
	ev := queryEvent(r.PostForm.Get("event"))
	if !a.admitted(w, r, race, u, ev) {
		return
	}
	h, err := a.svc.Start(r.Context(), u, race, ev)
	a.started(w, r, race, ev, h, err, func(status int, msg string, _ map[string]string) {
		a.Site.Render(w, r, status, EventChoicePage(a, u, race, ev, a.Now(), msg))
	})
}

// started answers a start of a hold in event ev: its first page, the
// confirmation of a runner registered already, the sold-out page, or the
// form again (refused) when the event is not open or the input is wrong.
func (a *App) started(w http.ResponseWriter, r *http.Request, race *Race, ev int64, h *Hold, err error,
	refused func(status int, msg string, fe map[string]string)) {
	var already *AlreadyRegistered
	switch {
	case errs.FieldsOf(err) != nil:
		refused(http.StatusUnprocessableEntity, "", errs.FieldsOf(err))
	case errors.As(err, &already):
		a.redirect(w, r, doneURL(race.Slug, already.Registration.HoldID)+"?already=1")
	case errors.Is(err, ErrSoldOut):
		a.redirect(w, r, soldOutURL(race.Slug, ev))
	case errors.Is(err, errNotOpen) || errors.Is(err, errClosed):
		refused(http.StatusConflict, errs.As(err).Message, nil)
	case err != nil:
		a.Site.Error(w, r, err)
	default:
		a.redirect(w, r, a.stepURL(race, h))
	}
}

// stepURL is the wizard page a hold is at.
func (a *App) stepURL(race *Race, h *Hold) string {
	base := entryURL(race.Slug, h.ID)
	switch {
	case h.Status == checkout.Paid:
		return base + "/wait"
	case h.Status == checkout.Done:
		return base + "/done"
	case h.Status == checkout.Paying:
		return base + "/pay"
	}
	return base + "/" + race.nextPage(h.Step)
}

func (a *App) soldOut(w http.ResponseWriter, r *http.Request) {
	race, err := a.svc.Race(r.Context(), r.PathValue("slug"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	id, _ := pathInt(r, "eid")
	e, ok := race.Event(id)
	if !ok {
		a.Site.Error(w, r, errs.ErrNotFound)
		return
	}
	// The counts as they are: the cached race's may be seconds old, and
	// the runner came here because the claim found no place.
	fresh, err := a.svc.FreshEvent(r.Context(), race, e.ID)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	e = fresh
	u := auth.UserFrom(r.Context())
	we, err := a.svc.WaitEntry(r.Context(), u, e.ID)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, http.StatusOK, SoldOutPage(a, u, race, e, we, flashWait(r, e), a.Now()))
}

// flashWait is the sold-out (or lottery) page's ?done= message after a
// redirect.
func flashWait(r *http.Request, e *Event) string {
	switch r.URL.Query().Get("done") {
	case "joined":
		return "You are on the list. We will e-mail you when a place is yours."
	case "entered":
		return "You are in the draw. We will e-mail you if the draw picks you."
	case "left":
		switch {
		case e.Lottery && e.DrawnAt == nil:
			return "You have withdrawn from the lottery."
		case e.Lottery:
			return "You are off the list."
		}
		return "You are off the waiting list."
	case "declined":
		return "You gave up the place: it goes to the next runner on the list."
	}
	return ""
}

// waitlistPost joins the {eid} event's waiting list (leave=1: leaves it).
func (a *App) waitlistPost(w http.ResponseWriter, r *http.Request) {
	u, race, ok := a.signedInForm(w, r)
	if !ok {
		return
	}
	id, err := pathInt(r, "eid")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	done := "joined"
	if r.PostForm.Get("leave") == "1" {
		// A place kept for the runner is given up, not a place in line.
		done = "left"
		if we, werr := a.svc.WaitEntry(r.Context(), u, id); werr == nil && we != nil && we.Status == "invited" {
			done = "declined"
		}
		err = a.svc.LeaveWaitlist(r.Context(), u, id)
	} else {
		err = a.svc.JoinWaitlist(r.Context(), u, race, id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	back := soldOutURL(race.Slug, id)
	if e, ok := race.Event(id); ok && e.Lottery {
		back = lotteryURL(race.Slug, id)
		if done == "joined" && e.DrawnAt == nil {
			done = "entered"
		}
	}
	a.redirect(w, r, back+"?done="+done)
}

// invitationPost takes the place a waiting list's invitation kept.
func (a *App) invitationPost(w http.ResponseWriter, r *http.Request) {
	u, race, ok := a.signedInForm(w, r)
	if !ok {
		return
	}
	id, err := pathInt(r, "eid")
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	h, err := a.svc.StartInvited(r.Context(), u, race, id)
	var already *AlreadyRegistered
	switch {
	case errors.As(err, &already):
		a.redirect(w, r, doneURL(race.Slug, already.Registration.HoldID)+"?already=1")
	case err != nil:
		a.Site.Error(w, r, err)
	default:
		a.redirect(w, r, a.stepURL(race, h))
	}
}
