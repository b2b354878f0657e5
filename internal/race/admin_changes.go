package race

import (
	"net/http"
	"strconv"
)

// The directors' side of changes after registering (changes.go): the
// rule of runners' changes and refunds (on the basics page), an event's
// registration closed (asked first) and opened again, a registrant's
// details edited (the runner is told).

func policyForm(r *http.Request) PolicyInput {
	f := r.PostForm
	return PolicyInput{EditDate: f.Get("edit_date"), EditTime: f.Get("edit_time"), Refund: f.Get("refund"), Percent: f.Get("percent"),
		UntilDate: f.Get("until_date"), UntilTime: f.Get("until_time")}
}

func (a *App) policySave(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	if !a.form(w, r) {
		return
	}
	in := policyForm(r)
	err := a.svc.SetPolicy(r.Context(), d, in)
	if f := refusal(err); f != nil {
		a.Site.Render(w, r, refusalStatus(err), BasicsPage(a, d.User, d.Race, basicsOf(d.Race), &PolicyForm{In: in, Errs: f}, nil, ""))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/basics?saved=policy")
}

// eventCloseShow asks before an event's registration is closed.
func (a *App) eventCloseShow(w http.ResponseWriter, r *http.Request) {
	d, e := a.directedEvent(w, r)
	if d == nil {
		return
	}
	a.Site.Render(w, r, http.StatusOK, CloseEventPage(a, d.User, d.Race, e))
}

func (a *App) eventClose(w http.ResponseWriter, r *http.Request)  { a.eventOpen(w, r, false) }
func (a *App) eventReopen(w http.ResponseWriter, r *http.Request) { a.eventOpen(w, r, true) }

// eventOpen closes event {eid}'s registration, or (open) opens it again.
func (a *App) eventOpen(w http.ResponseWriter, r *http.Request, open bool) {
	d, e := a.directedEvent(w, r)
	if d == nil {
		return
	}
	if err := a.svc.CloseEvent(r.Context(), d, e.ID, open); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	saved := "closed"
	if open {
		saved = "reopened"
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/events?saved="+saved)
}

// registrant is the directed race and its registration {rid}; nil after
// answering otherwise.
func (a *App) registrant(w http.ResponseWriter, r *http.Request) (*Directing, *Registration) {
	d := directedOf(r)
	id, err := pathInt(r, "rid")
	var reg Registration
	if err == nil {
		reg, err = a.svc.Registrant(r.Context(), d, id)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return nil, nil
	}
	return d, &reg
}

func (a *App) registrantShow(w http.ResponseWriter, r *http.Request) {
	d, reg := a.registrant(w, r)
	if d == nil {
		return
	}
	a.registrantPage(w, r, d, reg, http.StatusOK, changeOf(reg), nil)
}

func (a *App) registrantPage(w http.ResponseWriter, r *http.Request, d *Directing, reg *Registration, status int, in ChangeInput, fe map[string]string) {
	if teams, ok := a.teamsOf(w, r, d.Race); ok {
		a.Site.Render(w, r, status, EditRegistrantPage(a, d.User, d.Race, *reg, in, fe, teams))
	}
}

func (a *App) registrantSave(w http.ResponseWriter, r *http.Request) {
	d, reg := a.registrant(w, r)
	if d == nil || !a.form(w, r) {
		return
	}
	in := changeForm(r)
	err := a.svc.EditRegistrant(r.Context(), d, reg.ID, in)
	if f := refusal(err); f != nil {
		a.registrantPage(w, r, d, reg, refusalStatus(err), in, f)
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"/events/"+strconv.FormatInt(reg.EventID, 10)+"/entrants?saved=edited")
}
