package music

import "net/http"

// reportForm asks why a post is reported.
func (a *App) reportForm(w http.ResponseWriter, r *http.Request) {
	p, err := a.reportView(r, "", "")
	a.render(w, r, p, err)
}

// reportView is the report form of the path's post, with the reason typed
// and its error.
func (a *App) reportView(r *http.Request, reason, msg string) (*page, error) {
	id, err := pathID(r)
	if err != nil {
		return nil, err
	}
	u := me(r)
	post, err := a.svc.Post(r.Context(), u, id)
	if err != nil {
		return nil, err
	}
	p := &page{Title: "Report a post", Tab: "report", User: u, Post: post, Reason: reason, ReasonErr: msg}
	p.Unseen, err = a.svc.Unseen(r.Context(), u)
	return p, err
}
