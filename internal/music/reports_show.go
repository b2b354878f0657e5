package music

import (
	"net/http"

	"github.com/tutti-dev/tutti/internal/social"
)

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

// reportViews are the page's reported posts, for the core's list
// (social.ReportsList, as roar's).
func (a *App) reportViews(p *page) []social.ReportView {
	out := make([]social.ReportView, len(p.Reports))
	for i := range p.Reports {
		r := &p.Reports[i]
		v := social.ReportView{Count: r.Count, Reporter: r.Reporter, Reason: r.Reason, Noun: "post",
			Remove: postURL(r.Subject) + "/delete", Dismiss: postURL(r.Subject) + "/dismiss"}
		if r.Post != nil {
			v.Post = a.card(p, r.Post)
		}
		out[i] = v
	}
	return out
}
