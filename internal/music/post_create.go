package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// postCreate shares a link from the share form. Bad input renders the
// discovery page again with what was typed and the messages at their
// fields (422); nothing is written.
func (a *App) postCreate(w http.ResponseWriter, r *http.Request) {
	if err := web.ParseForm(r, 16<<10); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	u := me(r)
	d := Draft{URL: r.PostForm.Get("url"), Comment: r.PostForm.Get("comment"), Visibility: r.PostForm.Get("visibility")}
	typed := d
	id, err := a.svc.Share(r.Context(), u, d)
	if err != nil {
		e := errs.As(err)
		if e.Kind != errs.Invalid || web.WantsJSON(r) {
			a.Site.Error(w, r, err)
			return
		}
		r.URL.RawQuery = ""
		p, perr := a.discoveryView(r, u, &shareForm{Draft: typed, Errors: e.Fields})
		if perr != nil {
			a.Site.Error(w, r, perr)
			return
		}
		a.Site.Render(w, r, http.StatusUnprocessableEntity, a.musicPage(p))
		return
	}
	if web.WantsJSON(r) {
		web.JSON(w, http.StatusCreated, map[string]int64{"id": id})
		return
	}
	http.Redirect(w, r, "/music/", http.StatusSeeOther)
}
