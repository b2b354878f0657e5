package race

import (
	"errors"
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
)

// A runner's changes to their registration (changes.go): its details
// until the race's cutoff, and its cancellation under the race's refund
// rule, asked first. Another runner's registration is not found (entry).

// own is the signed-in runner's registration of {hold}, with its entry;
// nil after answering otherwise.
func (a *App) own(w http.ResponseWriter, r *http.Request) (*Entry, *Own) {
	en := a.entry(w, r)
	if en == nil {
		return nil, nil
	}
	o, err := a.svc.Own(r.Context(), en)
	if err != nil {
		a.Site.Error(w, r, err)
		return nil, nil
	}
	return en, o
}

// teamsOf is race's teams for a change form's suggestions (none when it
// has no teams); false after answering an error.
func (a *App) teamsOf(w http.ResponseWriter, r *http.Request, race *Race) ([]Team, bool) {
	if !race.Teams {
		return nil, true
	}
	teams, err := a.svc.Teams(r.Context(), race)
	if err != nil {
		a.Site.Error(w, r, err)
		return nil, false
	}
	return teams, true
}

// doneFlash is the registration page's message after a redirect.
func doneFlash(r *http.Request, o *Own) string {
	q := r.URL.Query()
	switch {
	case q.Get("already") == "1":
		return "You are registered for this event already; nothing was charged again."
	case q.Get("changed") == "1":
		return "Your details are changed."
	case q.Get("cancelled") == "1" && !o.Confirmed():
		return "Your registration is cancelled and your place was released. " + refundSentence(o, o.Race.Currency)
	}
	return ""
}

func changeForm(r *http.Request) ChangeInput {
	f := r.PostForm
	return ChangeInput{FirstName: f.Get("first_name"), LastName: f.Get("last_name"), Shirt: f.Get("shirt"), Team: f.Get("team")}
}

func (a *App) changeShow(w http.ResponseWriter, r *http.Request) {
	en, o := a.own(w, r)
	if o == nil {
		return
	}
	a.changePage(w, r, en, o, http.StatusOK, changeOf(&o.Registration), nil, "")
}

// changePage renders the change form with the race's teams for the
// team field's suggestions.
func (a *App) changePage(w http.ResponseWriter, r *http.Request, en *Entry, o *Own, status int, in ChangeInput, fe map[string]string, problem string) {
	if teams, ok := a.teamsOf(w, r, o.Race); ok {
		a.Site.Render(w, r, status, ChangePage(a, en.User, o, in, fe, teams, problem))
	}
}

func (a *App) changeSave(w http.ResponseWriter, r *http.Request) {
	en, o := a.own(w, r)
	if o == nil || !a.form(w, r) {
		return
	}
	in := changeForm(r)
	err := a.svc.ChangeOwn(r.Context(), en, in)
	if fe := errs.FieldsOf(err); fe != nil {
		a.changePage(w, r, en, o, http.StatusUnprocessableEntity, in, fe, "")
		return
	}
	if errs.KindOf(err) == errs.Conflict {
		problem := "" // a cancelled registration or a passed cutoff: the page says so
		if o.Confirmed() && o.CanEdit() {
			problem = errs.As(err).Message
		}
		a.changePage(w, r, en, o, http.StatusConflict, in, nil, problem)
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, doneURL(en.Race.Slug, en.Hold.ID)+"?changed=1")
}

func (a *App) cancelOwnShow(w http.ResponseWriter, r *http.Request) {
	en, o := a.own(w, r)
	if o == nil {
		return
	}
	status := http.StatusOK
	if !o.CanCancel() {
		status = http.StatusConflict
	}
	a.Site.Render(w, r, status, CancelOwnPage(a, en.User, o, ""))
}

func (a *App) cancelOwn(w http.ResponseWriter, r *http.Request) {
	en := a.entry(w, r)
	if en == nil {
		return
	}
	o, err := a.svc.CancelOwn(r.Context(), en, r.URL.Query().Get("refund"))
	switch {
	case errors.Is(err, errRefundChanged): // o is what it is now: confirm again
		a.Site.Render(w, r, http.StatusConflict, CancelOwnPage(a, en.User, o, errs.As(err).Message))
		return
	case errors.Is(err, errCancelledAlready), errors.Is(err, errStarted): // the page says which
		a.Site.Render(w, r, http.StatusConflict, CancelOwnPage(a, en.User, o, ""))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, doneURL(en.Race.Slug, en.Hold.ID)+"?cancelled=1")
}
