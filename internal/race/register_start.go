package race

import (
	"context"
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

// takeInvitation registers u with the place their invitation kept
// (waitlist.Races.Take; Service.StartInvited): the wizard's page their
// hold is at, or the confirmation of a runner registered meanwhile.
func (a *App) takeInvitation(ctx context.Context, u *auth.User, slug string, eventID int64) (string, error) {
	race, err := a.svc.Race(ctx, slug)
	if err != nil {
		return "", err
	}
	h, err := a.svc.StartInvited(ctx, u, race, eventID)
	var already *AlreadyRegistered
	switch {
	case errors.As(err, &already):
		return doneURL(race.Slug, already.Registration.HoldID) + "?already=1", nil
	case err != nil:
		return "", err
	}
	return a.stepURL(race, h), nil
}
