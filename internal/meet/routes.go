package meet

import (
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/text"
	"github.com/tutti-dev/tutti/internal/walltime"
	"github.com/tutti-dev/tutti/internal/web"
)

// Request body limits of the routes that take more than a small form; the
// others have the server's default (config MaxBodyBytes, 1 MiB). A body past
// its route's limit is refused with 413 (problem details for JSON) and
// writes nothing: web.MaxBody carries the limit, the site applies it.
const (
	// availabilityBodyLimit bounds the painted grid's JSON: every slot of
	// the longest poll (MaxDays of 96 quarter hours) painted is about
	// 6,000 entries of some 42 bytes, 250 KB.
	availabilityBodyLimit = 512 << 10
	// busyBodyLimit is a calendar at its limit (maxCalendarBytes) and the
	// multipart form around it, so that a calendar a little too large gets
	// the import's own message rather than a bare 413, whatever the
	// server's default limit.
	busyBodyLimit = maxCalendarBytes + 64<<10
)

// Routes mounts meet under /meet/ (rt's prefix). Nothing here needs an
// account: the organizer's and each participant's links carry their
// tokens, which the service checks.
func (a *App) Routes(rt *web.Router) {
	a.Site.Static(a.assets)
	rt.Get("/{$}", a.pollList)
	rt.Get("/polls/new", a.pollNew)
	rt.Post("/polls", a.pollCreate)
	rt.Get("/polls/{id}", a.pollShow)
	a.Site.Hot(rt.Pattern("GET", "/polls/{id}"), a.pollHot)
	rt.Get("/polls/{id}/export.csv", a.pollExportCSV)
	rt.Get("/polls/{id}/event.ics", a.pollEventICS)
	rt.Get("/polls/{id}/stream", a.pollStream)
	rt.Post("/polls/{id}/participants", a.participantAdd)
	rt.Get("/polls/{id}/p/{pid}", a.participantShow)

	admin := rt.Route("/polls/{id}/admin/{token}")
	admin.Get("", a.adminShow)
	admin.Post("", a.pollUpdate)
	admin.Post("/close", a.pollClose)
	admin.Post("/reopen", a.pollReopen)
	admin.Post("/duplicate", a.pollDuplicate)
	admin.Post("/delete", a.pollDelete)
	admin.Post("/participants/{pid}/delete", a.adminRemoveParticipant)

	own := rt.Route("/polls/{id}/p/{pid}/{token}")
	own.Get("", a.participantEdit)
	own.Post("/timeframes", a.timeframeAdd)
	own.Post("/timeframes/{tf}/delete", a.timeframeDelete)
	own.Handle(http.MethodPost, "/availability", web.MaxBody(availabilityBodyLimit, http.HandlerFunc(a.availabilityPut)))
	own.Post("/comments", a.commentAdd)
	own.Handle(http.MethodPost, "/busy", web.MaxBody(busyBodyLimit, http.HandlerFunc(a.busyImport)))
	own.Post("/delete", a.participantLeave)
}

// validID reports whether s looks like a poll id (22 URL-safe characters), so
// that garbage never reaches the database.
func validID(s string) bool { return len(s) == 22 && text.IsToken(s) }

// poll loads the poll named by the {id} path value.
func (a *App) poll(r *http.Request) (*Poll, error) {
	return a.svc.Poll(r.Context(), r.PathValue("id"))
}

// adminKey is the organizer's credentials in an admin link.
func adminKey(r *http.Request) AdminKey {
	return AdminKey{Poll: r.PathValue("id"), Token: r.PathValue("token")}
}

// ownKey is a participant's credentials in their private link.
func ownKey(r *http.Request) OwnKey {
	return OwnKey{Poll: r.PathValue("id"), Participant: pathID(r, "pid"), Token: r.PathValue("token")}
}

// pathID is the positive number in path value name, or 0 (which the
// service finds nowhere).
func pathID(r *http.Request, name string) int64 {
	n, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// locked reports whether the poll no longer takes answers (Service.Locked).
func (a *App) locked(p *Poll) bool { return a.svc.Locked(p) }

// zone is the viewer's display zone: ?tz=, else the meet_tz cookie (set by the
// browser's detected zone or the switcher), else the poll's zone.
func (a *App) zone(w http.ResponseWriter, r *http.Request, p *Poll) (string, *time.Location) {
	if z := a.zoneName(w, r); z != "" {
		if loc, err := walltime.Location(z); err == nil {
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
func ownURL(pollID string, pt *Participant) string {
	return "/meet/polls/" + pollID + "/p/" + strconv.FormatInt(pt.ID, 10) + "/" + pt.EditToken
}
func publicParticipantURL(p *Poll, pid int64) string {
	return "/meet/polls/" + p.ID + "/p/" + strconv.FormatInt(pid, 10)
}
