package race

import (
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// The directors' load rehearsal console (rehearsal.go).

func rehearsalsURL(slug string) string { return adminURL(slug) + "/rehearsals" }
func rehearsalURL(slug string, id int64) string {
	return rehearsalsURL(slug) + "/" + strconv.FormatInt(id, 10)
}

func rehearsalForm(r *http.Request) RehearsalInput {
	f := r.PostForm
	return RehearsalInput{Event: f.Get("event"), Runners: f.Get("runners"), PageMin: f.Get("page_min"), PageMax: f.Get("page_max"),
		Within: f.Get("within"), ClickMin: f.Get("click_min"), ClickMax: f.Get("click_max"), RefundDelay: f.Get("refund_delay"),
		Assets: f.Get("assets") == "on"}
}

func (a *App) rehearsalsShow(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	in := DefaultRehearsal.Input()
	if up := d.Race.Upcoming(a.Now()); len(up) > 0 {
		in.Event = i64(up[0].ID)
	}
	a.rehearsalsPage(w, r, d, http.StatusOK, in, nil, "")
}

func (a *App) rehearsalsPage(w http.ResponseWriter, r *http.Request, d *Directing, status int, in RehearsalInput, fe map[string]string, msg string) {
	list, err := a.svc.Rehearsals(r.Context(), d)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, status, RehearsalsPage(a, d.User, d.Race, list, in, fe, msg, a.Now()))
}

func (a *App) rehearsalStart(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	if !a.form(w, r) {
		return
	}
	in := rehearsalForm(r)
	rh, err := a.svc.StartRehearsal(r.Context(), d, in)
	if fe := errs.FieldsOf(err); fe != nil {
		a.rehearsalsPage(w, r, d, http.StatusUnprocessableEntity, in, fe, "")
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, rehearsalURL(d.Race.Slug, rh.ID))
}

// rehearsalOf is the rehearsal the path names, of the directed race.
func (a *App) rehearsalOf(w http.ResponseWriter, r *http.Request) (*Directing, int64) {
	d := directedOf(r)
	id, err := pathInt(r, "rid")
	if err != nil {
		a.Site.Error(w, r, err)
		return nil, 0
	}
	return d, id
}

func (a *App) rehearsalShow(w http.ResponseWriter, r *http.Request) {
	d, id := a.rehearsalOf(w, r)
	if d == nil {
		return
	}
	a.rehearsalPage(w, r, d, id, http.StatusOK, "", nil)
}

func (a *App) rehearsalPage(w http.ResponseWriter, r *http.Request, d *Directing, id int64, status int, comment string, fe map[string]string) {
	rh, err := a.svc.Rehearsal(r.Context(), d, id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	rep, err := a.svc.RehearsalReport(r.Context(), rh)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	made, refunded, err := a.svc.RehearsalRefunds(r.Context(), rh)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	if fe == nil {
		comment = rh.Comment
	}
	a.Site.Render(w, r, status, RehearsalPage(a, d.User, d.Race, rh, rep, made, refunded, comment, fe, flash(r), a.Now()))
}

// rehearsalProgress is the live gauges as JSON, for the page's script.
func (a *App) rehearsalProgress(w http.ResponseWriter, r *http.Request) {
	d, id := a.rehearsalOf(w, r)
	if d == nil {
		return
	}
	rh, err := a.svc.Rehearsal(r.Context(), d, id)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	web.JSON(w, http.StatusOK, struct {
		Live  bool   `json:"live"`
		Label string `json:"label"` // the stage, as the page says it
		RehearsalProgress
	}{rh.Live(a.Now()), rh.Progress.Label(), rh.Progress})
}

func (a *App) rehearsalStop(w http.ResponseWriter, r *http.Request) {
	d, id := a.rehearsalOf(w, r)
	if d == nil {
		return
	}
	if err := a.svc.StopRehearsal(r.Context(), d, id); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, rehearsalURL(d.Race.Slug, id))
}

func (a *App) rehearsalComment(w http.ResponseWriter, r *http.Request) {
	d, id := a.rehearsalOf(w, r)
	if d == nil || !a.form(w, r) {
		return
	}
	comment := r.PostForm.Get("comment")
	err := a.svc.CommentRehearsal(r.Context(), d, id, comment)
	if fe := errs.FieldsOf(err); fe != nil {
		a.rehearsalPage(w, r, d, id, http.StatusUnprocessableEntity, comment, fe)
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, rehearsalURL(d.Race.Slug, id)+"?saved=comment#comment")
}
