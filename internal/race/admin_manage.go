package race

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
)

// The director's management of the race (service_manage.go): remove a
// co-director, unpublish, delete a draft (asked first, on its own page).

func (a *App) directorRemove(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	if !a.form(w, r) {
		return
	}
	err := a.svc.RemoveDirector(r.Context(), d, r.PostForm.Get("username"))
	if f := refusal(err); f != nil {
		if f["form"] != "" {
			f = map[string]string{"remove": f["form"]}
		}
		a.renderAdmin(w, r, d.User, d.Race, refusalStatus(err), f, "")
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"?saved=removed")
}

func (a *App) unpublish(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	err := a.svc.Unpublish(r.Context(), d)
	if e := errs.As(err); err != nil && e.Kind == errs.Conflict {
		a.renderAdmin(w, r, d.User, d.Race, http.StatusConflict, map[string]string{"unpublish": e.Message}, "")
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, adminURL(d.Race.Slug)+"?saved=unpublished")
}

// deleteShow asks before a draft is deleted, saying what goes with it.
func (a *App) deleteShow(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	a.Site.Render(w, r, http.StatusOK, DeleteDraftPage(a, d.User, d.Race, ""))
}

func (a *App) deletePost(w http.ResponseWriter, r *http.Request) {
	d := directedOf(r)
	err := a.svc.DeleteDraft(r.Context(), d)
	if e := errs.As(err); err != nil && e.Kind == errs.Conflict {
		a.Site.Render(w, r, http.StatusConflict, DeleteDraftPage(a, d.User, d.Race, e.Message))
		return
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.redirect(w, r, "/race/mine")
}
