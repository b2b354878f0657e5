package meet

import (
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Routes mounts meet under /meet/.
func (a *App) Routes(mux *http.ServeMux) {
	mux.Handle("GET /meet/static/", a.assets)
	mux.HandleFunc("GET /meet/{$}", a.pollList)
	mux.HandleFunc("GET /meet/polls/new", a.pollNew)
	mux.HandleFunc("POST /meet/polls", a.pollCreate)
	mux.HandleFunc("GET /meet/polls/{id}", a.pollShow)
	mux.HandleFunc("GET /meet/polls/{id}/export.csv", a.pollExportCSV)
	mux.HandleFunc("GET /meet/polls/{id}/event.ics", a.pollEventICS)
	mux.HandleFunc("GET /meet/polls/{id}/stream", a.pollStream)
	mux.HandleFunc("POST /meet/polls/{id}/participants", a.participantAdd)
	mux.HandleFunc("GET /meet/polls/{id}/p/{pid}", a.participantShow)

	admin := "/meet/polls/{id}/admin/{token}"
	mux.HandleFunc("GET "+admin, a.adminShow)
	mux.HandleFunc("POST "+admin, a.pollUpdate)
	mux.HandleFunc("POST "+admin+"/close", a.pollClose)
	mux.HandleFunc("POST "+admin+"/reopen", a.pollReopen)
	mux.HandleFunc("POST "+admin+"/duplicate", a.pollDuplicate)
	mux.HandleFunc("POST "+admin+"/delete", a.pollDelete)
	mux.HandleFunc("POST "+admin+"/participants/{pid}/delete", a.adminRemoveParticipant)

	own := "/meet/polls/{id}/p/{pid}/{token}"
	mux.HandleFunc("GET "+own, a.participantEdit)
	mux.HandleFunc("POST "+own+"/timeframes", a.timeframeAdd)
	mux.HandleFunc("POST "+own+"/timeframes/{tf}/delete", a.timeframeDelete)
	mux.HandleFunc("POST "+own+"/availability", a.availabilityPut)
	mux.HandleFunc("POST "+own+"/comments", a.commentAdd)
	mux.HandleFunc("POST "+own+"/busy", a.busyImport)
	mux.HandleFunc("POST "+own+"/delete", a.participantLeave)
}

// validID reports whether s looks like a poll id (22 URL-safe characters), so
// that garbage never reaches the database.
func validID(s string) bool {
	if len(s) != 22 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// poll loads the poll named by the {id} path value.
func (a *App) poll(r *http.Request) (*Poll, error) {
	id := r.PathValue("id")
	if !validID(id) {
		return nil, errs.ErrNotFound
	}
	return a.store.Poll(r.Context(), id)
}

// adminPoll loads the poll and checks the organizer's token.
func (a *App) adminPoll(r *http.Request) (*Poll, error) {
	p, err := a.poll(r)
	if err != nil {
		return nil, err
	}
	if !sameSecret(r.PathValue("token"), p.AdminToken) {
		return nil, errs.ErrNotFound // do not reveal that the poll exists
	}
	return p, nil
}

// own loads the poll and the participant whose private link this is.
func (a *App) own(r *http.Request) (*Poll, *Participant, error) {
	p, err := a.poll(r)
	if err != nil {
		return nil, nil, err
	}
	pid, err := strconv.ParseInt(r.PathValue("pid"), 10, 64)
	if err != nil || pid <= 0 {
		return nil, nil, errs.ErrNotFound
	}
	pt, err := a.store.Participant(r.Context(), p.ID, pid)
	if err != nil {
		return nil, nil, err
	}
	if !sameSecret(r.PathValue("token"), pt.EditToken) {
		return nil, nil, errs.ErrNotFound
	}
	return p, pt, nil
}

// locked reports whether the poll no longer takes answers.
func (a *App) locked(p *Poll) bool {
	return p.ClosedStart != nil || (p.Deadline != nil && !a.Now().Before(*p.Deadline))
}

// zone is the viewer's display zone: ?tz=, else the meet_tz cookie (set by the
// browser's detected zone or the switcher), else the poll's zone.
func (a *App) zone(w http.ResponseWriter, r *http.Request, p *Poll) (string, *time.Location) {
	if z := a.zoneName(w, r); z != "" {
		if loc, err := time.LoadLocation(z); err == nil {
			return z, loc
		}
	}
	loc, err := p.Location()
	if err != nil {
		return "UTC", time.UTC
	}
	return p.TZ, loc
}

func (a *App) redirect(w http.ResponseWriter, r *http.Request, url string) {
	http.Redirect(w, r, url, http.StatusSeeOther)
}

func pollURL(p *Poll) string  { return "/meet/polls/" + p.ID }
func adminURL(p *Poll) string { return "/meet/polls/" + p.ID + "/admin/" + p.AdminToken }
func ownURL(p *Poll, pt *Participant) string {
	return "/meet/polls/" + p.ID + "/p/" + strconv.FormatInt(pt.ID, 10) + "/" + pt.EditToken
}
func publicParticipantURL(p *Poll, pid int64) string {
	return "/meet/polls/" + p.ID + "/p/" + strconv.FormatInt(pid, 10)
}
