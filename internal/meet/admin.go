package meet

import (
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/walltime"
)

// adminView is the organizer's page.
type adminView struct {
	Poll   *Poll
	Input  PollInput
	Fields map[string]string
	View   *pollView
	Flash  string
	Base   string           // scheme and host of full links
	Tokens map[int64]string // participant id -> secret of their private link
	// The "close the poll on" form as typed, and its messages.
	Close       CloseInput
	CloseFields map[string]string
}

// adminShow is the organizer's private page: their link, the edit form, the
// best times to close on, the participants to manage, duplicate and delete.
func (a *App) adminShow(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.renderAdmin(w, r, http.StatusOK, func(av *adminView) {
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
	})
}

// renderAdmin renders the organizer's page of the request's admin link
// (Service.OrganizerPage checks the token) with status; edit fills in what
// differs from the page as it is (a flash, a form as typed with messages).
func (a *App) renderAdmin(w http.ResponseWriter, r *http.Request, status int, edit func(*adminView)) {
	d, tokens, err := a.svc.OrganizerPage(r.Context(), adminKey(r))
	if err != nil {
		a.Site.Error(w, r, err)
		return
	}
	p := d.Poll
	zone, _ := a.zone(w, r, p)
	v := a.buildPollView(d, zone, pageQuery{all: true})
	av := &adminView{Poll: p, Input: p.Input(), View: v, Base: a.base(r), Tokens: tokens,
		Close: CloseInput{TZ: v.Zone, Duration: strconv.Itoa(int(p.Duration() / time.Minute))}}
	if len(v.Best) == 0 {
		av.Close.Choice = "other"
	} else {
		av.Close.Choice = rfc(v.Best[0].Start)
	}
	if first, _ := p.Range(); !first.IsZero() {
		av.Close.Date = first.In(v.Loc).Format(time.DateOnly)
		av.Close.Time = first.In(v.Loc).Format("15:04")
	}
	if edit != nil {
		edit(av)
	}
	a.Site.Render(w, r, status, AdminPage(a, av))
}

// closeZone is the zone of the close form's date and time: the one they
// were typed in when the form comes back refused, else the page's.
func closeZone(av *adminView) string {
	if z := av.Close.TZ; z != "" && z != "Local" {
		if _, err := walltime.Location(z); err == nil {
			return z
		}
	}
	return av.View.Zone
}

// ownLink is the full private link of participant pid, "" if unknown.
func (av *adminView) ownLink(pid int64) string {
	tok, ok := av.Tokens[pid]
	if !ok {
		return ""
	}
	return av.Base + ownURL(av.Poll.ID, &Participant{ID: pid, EditToken: tok})
}
