package race

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// entry is the signed-in runner's {hold} of race {slug}; false after
// answering otherwise.
func (a *App) entry(w http.ResponseWriter, r *http.Request) (*auth.User, *Race, *Event, *Hold, bool) {
	u, ok := a.user(w, r)
	if !ok {
		return nil, nil, nil, nil, false
	}
	race, e, h, err := a.svc.Entry(r.Context(), u, r.PathValue("slug"), r.PathValue("hold"))
	if err != nil {
		a.Site.Error(w, r, err)
		return nil, nil, nil, nil, false
	}
	return u, race, e, h, true
}

// moved answers a page of the wizard that the hold is past (paid) or
// before (an earlier page undone): to the page it is at. It reports
// whether it did.
func (a *App) moved(w http.ResponseWriter, r *http.Request, race *Race, h *Hold, need int) bool {
	if h.Status == HoldPaid || h.Status == HoldDone || h.Step < need {
		a.redirect(w, r, a.stepURL(race, h))
		return true
	}
	return false
}

// wizardErr answers a failed wizard write: sold out when the runner came
// back too late, the current page when the hold moved on, else the error.
func (a *App) wizardErr(w http.ResponseWriter, r *http.Request, race *Race, h *Hold, err error) {
	switch {
	case errors.Is(err, ErrSoldOut):
		a.redirect(w, r, soldOutURL(race.Slug, h.EventID))
	case errors.Is(err, ErrHoldMoved) && h != nil:
		a.redirect(w, r, a.stepURL(race, h))
	default:
		a.Site.Error(w, r, err)
	}
}

func entrantOf(h *Hold) EntrantInput {
	return EntrantInput{FirstName: h.FirstName, LastName: h.LastName, Email: h.Email, BirthDate: h.BirthDate,
		Gender: h.Gender, City: h.City, Emergency: h.Emergency}
}

func (a *App) detailsShow(w http.ResponseWriter, r *http.Request) {
	u, race, e, h, ok := a.entry(w, r)
	if !ok || a.moved(w, r, race, h, 0) {
		return
	}
	a.Site.Render(w, r, http.StatusOK, DetailsPage(a, u, race, e, h, entrantOf(h), nil, a.Now()))
}

func (a *App) detailsSave(w http.ResponseWriter, r *http.Request) {
	u, race, e, h, ok := a.entry(w, r)
	if !ok || !a.form(w, r) {
		return
	}
	f := r.PostForm
	in := EntrantInput{FirstName: f.Get("first_name"), LastName: f.Get("last_name"), Email: f.Get("email"),
		BirthDate: f.Get("birth_date"), Gender: f.Get("gender"), City: f.Get("city"), Emergency: f.Get("emergency")}
	_, err := a.svc.SaveEntrant(r.Context(), u, race.Slug, h.ID, in)
	if fe := fields(err); fe != nil {
		a.Site.Render(w, r, http.StatusUnprocessableEntity, DetailsPage(a, u, race, e, h, in, fe, a.Now()))
		return
	}
	if err != nil {
		a.wizardErr(w, r, race, h, err)
		return
	}
	a.redirect(w, r, entryURL(race.Slug, h.ID)+"/waiver")
}

func (a *App) waiverShow(w http.ResponseWriter, r *http.Request) {
	u, race, e, h, ok := a.entry(w, r)
	if !ok || a.moved(w, r, race, h, stepDetails) {
		return
	}
	a.Site.Render(w, r, http.StatusOK, WaiverPage(a, u, race, e, h, nil, a.Now()))
}

func (a *App) waiverSave(w http.ResponseWriter, r *http.Request) {
	u, race, e, h, ok := a.entry(w, r)
	if !ok || !a.form(w, r) {
		return
	}
	_, err := a.svc.AcceptWaiver(r.Context(), u, race.Slug, h.ID, r.PostForm.Get("accept") == "yes")
	if fe := fields(err); fe != nil {
		a.Site.Render(w, r, http.StatusUnprocessableEntity, WaiverPage(a, u, race, e, h, fe, a.Now()))
		return
	}
	if err != nil {
		a.wizardErr(w, r, race, h, err)
		return
	}
	a.redirect(w, r, entryURL(race.Slug, h.ID)+"/review")
}

func (a *App) reviewShow(w http.ResponseWriter, r *http.Request) {
	u, race, e, h, ok := a.entry(w, r)
	if !ok || a.moved(w, r, race, h, stepWaiver) {
		return
	}
	a.Site.Render(w, r, http.StatusOK, ReviewPage(a, u, race, e, h, a.Now()))
}

func (a *App) testCards() bool { _, ok := a.Pay.(*pay.Test); return ok }

func (a *App) payShow(w http.ResponseWriter, r *http.Request) {
	u, race, e, h, ok := a.entry(w, r)
	if !ok || a.moved(w, r, race, h, stepWaiver) {
		return
	}
	a.Site.Render(w, r, http.StatusOK, PaymentPage(a, u, race, e, h, nil, "", a.testCards(), a.Now()))
}

// writtenWait is how long the payment's answer waits for the writer before
// it sends the runner to the waiting page: long enough for a batch when the
// writer keeps up, short enough for nobody to think the page hangs.
const writtenWait = 2 * time.Second

func (a *App) payPost(w http.ResponseWriter, r *http.Request) {
	u, race, e, h, ok := a.entry(w, r)
	if !ok || !a.form(w, r) {
		return
	}
	h2, err := a.svc.Pay(r.Context(), u, race.Slug, h.ID, r.PostForm.Get("card"))
	if err != nil {
		if h2 != nil {
			h = h2
		}
		fe := errs.As(err)
		switch {
		case fe.Kind == errs.Invalid || fe.Kind == errs.TooMany:
			status := http.StatusUnprocessableEntity
			if fe.Kind == errs.TooMany {
				status = http.StatusServiceUnavailable
			}
			a.Site.Render(w, r, status, PaymentPage(a, u, race, e, h, fe.Fields, fe.Message, a.testCards(), a.Now()))
		default:
			a.wizardErr(w, r, race, h, err)
		}
		return
	}
	if reg, err := a.svc.Written(r.Context(), h.ID, writtenWait); err == nil && reg != nil {
		a.redirect(w, r, doneURL(race.Slug, h.ID))
		return
	}
	a.redirect(w, r, entryURL(race.Slug, h.ID)+"/wait")
}

// waitShow is the waiting page: written, the confirmation; else the page
// again, checking after 10 s, 20 s, 40 s, then every minute.
func (a *App) waitShow(w http.ResponseWriter, r *http.Request) {
	u, race, e, h, ok := a.entry(w, r)
	if !ok {
		return
	}
	if h.Status != HoldPaid && h.Status != HoldDone {
		a.redirect(w, r, a.stepURL(race, h))
		return
	}
	if h.Status == HoldDone {
		a.redirect(w, r, doneURL(race.Slug, h.ID))
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	w.Header().Set("Cache-Control", "no-store")
	a.Site.Render(w, r, http.StatusOK, WaitPage(a, u, race, e, h, min(max(n, 0), 100)))
}

func (a *App) doneShow(w http.ResponseWriter, r *http.Request) {
	u, race, e, h, ok := a.entry(w, r)
	if !ok {
		return
	}
	reg, err := a.svc.Written(r.Context(), h.ID, 0)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if reg == nil {
		a.redirect(w, r, a.stepURL(race, h))
		return
	}
	msg := ""
	if r.URL.Query().Get("already") == "1" {
		msg = "You are registered for this event already; nothing was charged again."
	}
	a.Site.Render(w, r, http.StatusOK, DonePage(a, u, race, e, reg, msg))
}

func (a *App) leave(w http.ResponseWriter, r *http.Request) {
	u, race, _, h, ok := a.entry(w, r)
	if !ok {
		return
	}
	if err := a.svc.Leave(r.Context(), u, race.Slug, h.ID); err != nil {
		a.wizardErr(w, r, race, h, err)
		return
	}
	a.redirect(w, r, raceURL(race.Slug))
}
