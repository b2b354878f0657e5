package race

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/web"
)

// entry is the signed-in runner's {hold} of race {slug}; nil after
// answering otherwise.
func (a *App) entry(w http.ResponseWriter, r *http.Request) *Entry {
	u, ok := auth.RequireUser(w, r)
	if !ok {
		return nil
	}
	en, err := a.svc.Entry(r.Context(), u, r.PathValue("slug"), r.PathValue("hold"))
	if err != nil {
		a.Site.Error(w, r, err)
		return nil
	}
	return en
}

// moved answers page step of the wizard when the hold is past it (paid)
// or before it (an earlier page undone): with the page it is at. It
// reports whether it did.
func (a *App) moved(w http.ResponseWriter, r *http.Request, race *Race, h *Hold, step int) bool {
	if h.Status == checkout.Paid || h.Status == checkout.Done || h.Step < race.needs(step) {
		a.redirect(w, r, a.stepURL(race, h))
		return true
	}
	return false
}

// wizardErr answers a failed wizard write: sold out when the runner came
// back too late, the current page when the hold moved on, the early-access
// page when an early hold ran out before the opening, the page the hold is
// at now when the proxy sent the form again after it was saved (the
// instance that saved it died before answering), else the error.
func (a *App) wizardErr(w http.ResponseWriter, r *http.Request, race *Race, h *Hold, err error) {
	if errors.Is(err, errs.ErrRepeated) && h != nil {
		if now, herr := a.svc.HoldNow(r.Context(), h); herr == nil {
			a.redirect(w, r, a.stepURL(race, now))
			return
		}
	}
	switch {
	case errors.Is(err, ErrSoldOut):
		a.redirect(w, r, soldOutURL(race.Slug, h.EventID))
	case errors.Is(err, ErrHoldMoved) && h != nil:
		a.redirect(w, r, a.stepURL(race, h))
	case errors.Is(err, errEarlyRanOut) && h != nil:
		a.redirect(w, r, raceURL(race.Slug)+"/early?event="+strconv.FormatInt(h.EventID, 10)+"&ran_out=1")
	default:
		a.Site.Error(w, r, err)
	}
}

func entrantOf(h *Hold) EntrantInput {
	return EntrantInput{FirstName: h.FirstName, LastName: h.LastName, Email: h.Email, BirthDate: h.BirthDate,
		Gender: h.Gender, City: h.City, Emergency: h.Emergency, Shirt: h.Shirt}
}

func (a *App) detailsShow(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || a.moved(w, r, en.Race, en.Hold, stepDetails) {
		return
	}
	u, race, e, h := en.User, en.Race, en.Event, en.Hold
	a.Site.Render(w, r, http.StatusOK, DetailsPage(a, u, race, e, h, entrantOf(h), nil, a.Now()))
}

func (a *App) detailsSave(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || !a.form(w, r) {
		return
	}
	u, race, e, h := en.User, en.Race, en.Event, en.Hold
	f := r.PostForm
	in := EntrantInput{FirstName: f.Get("first_name"), LastName: f.Get("last_name"), Email: f.Get("email"),
		BirthDate: f.Get("birth_date"), Gender: f.Get("gender"), City: f.Get("city"), Emergency: f.Get("emergency"), Shirt: f.Get("shirt")}
	err := a.svc.SaveEntrant(r.Context(), en, in)
	if fe := errs.FieldsOf(err); fe != nil {
		a.Site.Render(w, r, http.StatusUnprocessableEntity, DetailsPage(a, u, race, e, h, in, fe, a.Now()))
		return
	}
	if err != nil {
		a.wizardErr(w, r, race, h, err)
		return
	}
	a.redirect(w, r, entryURL(race.Slug, h.ID)+"/"+race.nextPage(stepDetails))
}

func (a *App) waiverShow(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || a.moved(w, r, en.Race, en.Hold, stepWaiver) {
		return
	}
	u, race, e, h := en.User, en.Race, en.Event, en.Hold
	a.Site.Render(w, r, http.StatusOK, WaiverPage(a, u, race, e, h, nil, a.Now()))
}

func (a *App) waiverSave(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || !a.form(w, r) {
		return
	}
	u, race, e, h := en.User, en.Race, en.Event, en.Hold
	err := a.svc.AcceptWaiver(r.Context(), en, r.PostForm.Get("accept") == "yes")
	if fe := errs.FieldsOf(err); fe != nil {
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
	en := a.entry(w, r)
	if en == nil || a.moved(w, r, en.Race, en.Hold, stepWaiver+1) || !a.lines(w, r, en) {
		return
	}
	u, race, e, h := en.User, en.Race, en.Event, en.Hold
	a.Site.Render(w, r, http.StatusOK, ReviewPage(a, u, race, e, h, a.Now()))
}

// lines loads the store lines of en's hold; false after answering an
// error.
func (a *App) lines(w http.ResponseWriter, r *http.Request, en *Entry) bool {
	var err error
	if en.Hold.Lines, err = a.svc.Lines(r.Context(), en); err != nil {
		a.Site.Error(w, r, err)
		return false
	}
	return true
}

func (a *App) testCards() bool { _, ok := a.Pay.(*pay.Test); return ok }

func (a *App) payShow(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || a.moved(w, r, en.Race, en.Hold, stepWaiver+1) || !a.lines(w, r, en) {
		return
	}
	u, race, e, h := en.User, en.Race, en.Event, en.Hold
	a.Site.Render(w, r, http.StatusOK, PaymentPage(a, u, race, e, h, nil, "", a.testCards(), a.Now()))
}

// writtenWait is how long the payment's answer waits for the writer before
// it sends the runner to the waiting page: long enough for a batch when the
// writer keeps up, short enough for nobody to think the page hangs.
const writtenWait = 2 * time.Second

func (a *App) payPost(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil || !a.form(w, r) {
		return
	}
	written, err := a.svc.PayWritten(r.Context(), en, r.PostForm.Get("card"), r.PostForm.Get("total"), writtenWait)
	if err != nil {
		u, race, e, h := en.User, en.Race, en.Event, en.Hold // read again if the total changed
		fe := errs.As(err)
		switch {
		case fe.Kind == errs.Invalid:
			msg := fe.Message // said once: at the field when there is one
			if len(fe.Fields) > 0 {
				msg = ""
			}
			a.Site.Render(w, r, http.StatusUnprocessableEntity, PaymentPage(a, u, race, e, h, fe.Fields, msg, a.testCards(), a.Now()))
		case fe.Kind == errs.TooMany: // the gateway did not answer: the form again, to send once more
			web.SetRetryAfter(w.Header(), fe.RetryAfter)
			a.Site.Render(w, r, http.StatusServiceUnavailable, PaymentPage(a, u, race, e, h, nil, fe.Message, a.testCards(), a.Now()))
		case errors.Is(err, pay.ErrKeyReused): // another card while the first's answer is outstanding: the form again, to pay with it
			a.Site.Render(w, r, http.StatusConflict, PaymentPage(a, u, race, e, h, nil, fe.Message, a.testCards(), a.Now()))
		default:
			a.wizardErr(w, r, race, h, err)
		}
		return
	}
	race, h := en.Race, en.Hold
	if written {
		a.redirect(w, r, doneURL(race.Slug, h.ID))
		return
	}
	a.redirect(w, r, entryURL(race.Slug, h.ID)+"/wait")
}

// waitShow is the waiting page: written, the confirmation; else the page
// again, checking after 10 s, 20 s, 40 s, then every minute.
func (a *App) waitShow(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil {
		return
	}
	u, race, e, h := en.User, en.Race, en.Event, en.Hold
	if h.Status != checkout.Paid && h.Status != checkout.Done {
		a.redirect(w, r, a.stepURL(race, h))
		return
	}
	if h.Status == checkout.Done {
		a.redirect(w, r, doneURL(race.Slug, h.ID))
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("n"))
	n = min(max(n, 0), 100)
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("Refresh", strconv.Itoa(waitDelay(n))+"; url="+entryURL(race.Slug, h.ID)+"/wait?n="+strconv.Itoa(n+1))
	a.Site.Render(w, r, http.StatusOK, WaitPage(a, u, race, e, h, n))
}

func (a *App) doneShow(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil {
		return
	}
	u, race, e, h := en.User, en.Race, en.Event, en.Hold
	reg, err := a.svc.Written(r.Context(), h.ID, 0)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if reg == nil {
		a.redirect(w, r, a.stepURL(race, h))
		return
	}
	if !a.lines(w, r, en) {
		return
	}
	o := a.svc.OwnOf(en, reg)
	a.Site.Render(w, r, http.StatusOK, DonePage(a, u, race, e, reg, o, en.Hold.Lines, doneFlash(r, o)))
}

func (a *App) leave(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil {
		return
	}
	if err := a.svc.Leave(r.Context(), en); err != nil {
		a.wizardErr(w, r, en.Race, en.Hold, err)
		return
	}
	a.redirect(w, r, mineURL+"?released=1")
}

// leaveShow asks before the place is given up (the POST gives it up).
func (a *App) leaveShow(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil {
		return
	}
	a.Site.Render(w, r, http.StatusOK, LeaveConfirmPage(a, en.User, en.Race, en.Event, en.Hold))
}
