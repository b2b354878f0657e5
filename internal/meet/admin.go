package meet

import (
	"net/http"
)

// adminView is the organizer's page.
type adminView struct {
	Poll   *Poll
	Input  PollInput
	Fields map[string]string
	View   *pollView
	Flash  string
}

// adminShow is the organizer's private page: their link, the edit form, the
// best times to close on, the participants to manage, duplicate and delete.
func (a *App) adminShow(w http.ResponseWriter, r *http.Request) {
	p, err := a.adminPoll(r)
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	zone, _ := a.zone(w, r, p)
	v, err := a.buildPollView(r.Context(), p.ID, zone, pageQuery{all: true})
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	av := &adminView{Poll: p, Input: p.Input(), View: v}
	q := r.URL.Query()
	switch {
	case q.Has("created"):
		av.Flash = "Your poll is ready. Keep this page's link: it is your private admin link. Share the poll's public link with participants."
	case q.Has("removed"):
		av.Flash = "Saved. The times that no longer fit the poll were removed from the answers; everything else is kept."
	case q.Has("saved"):
		av.Flash = "Saved."
	case q.Has("closed"):
		av.Flash = "The poll is closed on the chosen time."
	}
	a.Site.Render(w, r, http.StatusOK, AdminPage(a, av))
}
