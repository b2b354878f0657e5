package race

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
)

// A runner's codes (codes.go): early access before an event opens, and a
// discount code on the payment page.

func (a *App) earlyShow(w http.ResponseWriter, r *http.Request) {
	u, ok := auth.RequireUser(w, r)
	if !ok {
		return
	}
	race, err := a.svc.Race(r.Context(), r.PathValue("slug"))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	msg := ""
	if r.URL.Query().Get("ran_out") == "1" {
		msg = errEarlyRanOut.Message
	}
	a.Site.Render(w, r, http.StatusOK, EarlyPage(a, u, race, queryEvent(r.URL.Query().Get("event")), "", nil, msg, a.Now()))
}

// earlyStart holds a place with an early-access code. It is not behind
// the waiting room: a runner with a code is let in by the code, and a
// wrong code is refused before anything is held.
func (a *App) earlyStart(w http.ResponseWriter, r *http.Request) {
	u, race, ok := a.signedInForm(w, r)
	if !ok {
		return
	}
	ev, code := queryEvent(r.PostForm.Get("event")), r.PostForm.Get("code")
	h, err := a.svc.StartEarly(r.Context(), u, race, ev, code)
	a.started(w, r, race, ev, h, err, func(status int, msg string, fe map[string]string) {
		a.Site.Render(w, r, status, EarlyPage(a, u, race, ev, code, fe, msg, a.Now()))
	})
}

// codeApply applies a discount code to the entry (remove=1: takes it off),
// then the payment page again.
func (a *App) codeApply(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || !a.form(w, r) {
		return
	}
	code := r.PostForm.Get("code")
	if r.PostForm.Get("remove") == "1" {
		code = ""
	} else if code == "" {
		code = " " // nothing typed: said so, not taken as a removal
	}
	err := a.svc.ApplyCode(r.Context(), en, code)
	if fe := errs.FieldsOf(err); fe != nil {
		if !a.lines(w, r, en) {
			return
		}
		a.Site.Render(w, r, http.StatusUnprocessableEntity, PaymentPage(a, en.User, en.Race, en.Event, en.Hold, fe, "", a.testCards(), a.Now()))
		return
	}
	if err != nil {
		a.wizardErr(w, r, en.Race, en.Hold, err)
		return
	}
	a.redirect(w, r, entryURL(en.Race.Slug, en.Hold.ID)+"/pay")
}
