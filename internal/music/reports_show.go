package music

import "net/http"

// reportsShow is the reported posts, for the moderators.
func (a *App) reportsShow(w http.ResponseWriter, r *http.Request) {
	u := me(r)
	rs, err := a.svc.Reports(r.Context(), u)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p := &page{Title: "Reports", Tab: "reports", User: u, Reports: rs}
	if p.Unseen, err = a.svc.Unseen(r.Context(), u); err != nil {
		a.Site.Error(w, r, err)
		return
	}
	a.render(w, r, p, nil)
}
