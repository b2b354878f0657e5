package rehearsals

import (
	"context"
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/web"
)

// URL is race slug's rehearsal console.
func URL(slug string) string { return races.AdminURL(slug) + "/rehearsals" }

// rehearsalURL is rehearsal id's page.
func rehearsalURL(slug string, id int64) string { return URL(slug) + "/" + strconv.FormatInt(id, 10) }

// Routes mounts the console in race's admin group (/race/r/{slug}/admin),
// whose middleware has checked the director (races.DirectingOf); the
// pages of one rehearsal find it in the route's middleware (rehearsalOf).
func (a *App) Routes(admin *web.Router) {
	admin.Get("/rehearsals", a.consoleShow)
	admin.Post("/rehearsals", a.start)
	one := admin.Route("/rehearsals/{rid}", a.rehearsalOf)
	one.Get("", a.show)
	one.Get("/progress", a.progress)
	one.Post("/stop", a.stop)
	one.Post("/comment", a.comment)
}

type rehearsalKey struct{}

// rehearsalOf is the middleware of one rehearsal's pages: it loads
// rehearsal {rid} of the directed race (not found when it is another
// race's) and hands it to the handler (theRehearsal).
func (a *App) rehearsalOf(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := races.DirectingOf(r)
		if d == nil {
			a.Site.Error(w, r, races.ErrNoRace)
			return
		}
		id, err := races.ParseID(r.PathValue("rid"))
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		rh, err := a.svc.get(r.Context(), d, id)
		if err != nil {
			a.Site.Error(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), rehearsalKey{}, rh)))
	})
}

// theRehearsal is the race, director and rehearsal rehearsalOf loaded.
func theRehearsal(r *http.Request) (*races.Directing, *rehearsal) {
	rh, _ := r.Context().Value(rehearsalKey{}).(*rehearsal)
	return races.DirectingOf(r), rh
}

func form(r *http.Request) input {
	f := r.PostForm
	return input{Event: f.Get("event"), Runners: f.Get("runners"), PageMin: f.Get("page_min"), PageMax: f.Get("page_max"),
		Within: f.Get("within"), ClickMin: f.Get("click_min"), ClickMax: f.Get("click_max"), RefundDelay: f.Get("refund_delay"),
		Assets: f.Get("assets") == "on"}
}

// parseForm parses a small form; false after answering a bad one.
func (a *App) parseForm(w http.ResponseWriter, r *http.Request) bool {
	if err := web.ParseForm(r, 64<<10); err != nil {
		a.Site.Error(w, r, err)
		return false
	}
	return true
}

func (a *App) consoleShow(w http.ResponseWriter, r *http.Request) {
	d := races.DirectingOf(r)
	in := defaults.input()
	if up := upcoming(d.Race, a.Now()); len(up) > 0 {
		in.Event = strconv.FormatInt(up[0].ID, 10)
	}
	a.console(w, r, d, http.StatusOK, in, nil)
}

func (a *App) console(w http.ResponseWriter, r *http.Request, d *races.Directing, status int, in input, fe map[string]string) {
	list, err := a.svc.list(r.Context(), d)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.Site.Render(w, r, status, consolePage(a, d.User.Username, d.Race, list, in, fe, a.Now()))
}

func (a *App) start(w http.ResponseWriter, r *http.Request) {
	d := races.DirectingOf(r)
	if !a.parseForm(w, r) {
		return
	}
	in := form(r)
	rh, err := a.svc.start(r.Context(), d, in)
	if fe := errs.FieldsOf(err); fe != nil {
		a.console(w, r, d, http.StatusUnprocessableEntity, in, fe)
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	http.Redirect(w, r, rehearsalURL(d.Race.Slug, rh.ID), http.StatusSeeOther)
}

func (a *App) show(w http.ResponseWriter, r *http.Request) {
	d, rh := theRehearsal(r)
	a.page(w, r, d, rh, http.StatusOK, rh.Comment, nil)
}

func (a *App) page(w http.ResponseWriter, r *http.Request, d *races.Directing, rh *rehearsal, status int, comment string, fe map[string]string) {
	rep, err := a.svc.report(r.Context(), rh)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	made, refunded, err := a.svc.refunds(r.Context(), rh)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	flash := ""
	if r.URL.Query().Get("saved") == "comment" {
		flash = "Comment saved."
	}
	a.Site.Render(w, r, status, rehearsalPage(a, d.User.Username, d.Race, rh, rep, made, refunded, comment, fe, flash, a.Now()))
}

// progress is the live gauges as JSON, for the page's script.
func (a *App) progress(w http.ResponseWriter, r *http.Request) {
	_, rh := theRehearsal(r)
	web.JSON(w, http.StatusOK, struct {
		Live  bool   `json:"live"`
		Label string `json:"label"` // the stage, as the page says it
		progress
	}{rh.live(a.Now()), rh.Progress.label(), rh.Progress})
}

func (a *App) stop(w http.ResponseWriter, r *http.Request) {
	d, rh := theRehearsal(r)
	if err := a.svc.stopOne(r.Context(), d, rh.ID); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	http.Redirect(w, r, rehearsalURL(d.Race.Slug, rh.ID), http.StatusSeeOther)
}

func (a *App) comment(w http.ResponseWriter, r *http.Request) {
	d, rh := theRehearsal(r)
	if !a.parseForm(w, r) {
		return
	}
	comment := r.PostForm.Get("comment")
	err := a.svc.comment(r.Context(), d, rh.ID, comment)
	if fe := errs.FieldsOf(err); fe != nil {
		a.page(w, r, d, rh, http.StatusUnprocessableEntity, comment, fe)
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	http.Redirect(w, r, rehearsalURL(d.Race.Slug, rh.ID)+"?saved=comment#comment", http.StatusSeeOther)
}
