package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// reportCreate files my report of a post; without a reason the form comes
// back with a message (422).
func (a *App) reportCreate(w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r)
	if err == nil {
		err = web.ParseForm(r, 16<<10)
	}
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	reason := r.PostForm.Get("reason")
	if err := a.svc.Report(r.Context(), me(r), id, reason); err != nil {
		e := errs.As(err)
		if e.Kind != errs.Invalid || web.WantsJSON(r) {
			a.Site.Error(w, r, err)
			return
		}
		p, perr := a.reportView(r, reason, e.Fields["reason"])
		if perr != nil {
			a.Site.Error(w, r, perr)
			return
		}
		a.Site.Render(w, r, http.StatusUnprocessableEntity, a.musicPage(p))
		return
	}
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusCreated, map[string]bool{"reported": true})
		return
	}
	http.Redirect(w, r, postURL(id)+"?reported=1", http.StatusSeeOther)
}
