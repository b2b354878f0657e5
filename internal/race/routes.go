package race

import (
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/web"
)

// Routes mounts race under /race/.
func (a *App) Routes(mux *http.ServeMux) {
	a.Site.Static(a.assets)
	mux.HandleFunc("GET /race/{$}", a.raceList)
	mux.HandleFunc("GET /race/mine", a.mine)
	mux.HandleFunc("GET /race/new", a.raceNew)
	mux.Handle("POST /race/races", web.MaxBody(logoBodyLimit, http.HandlerFunc(a.raceCreate)))

	// Runners.
	// The race page is everyone's alike: no session loaded for it, and the
	// hot lane answers it whatever cookies a runner sends.
	a.Site.Early("GET /race/r/{slug}", http.HandlerFunc(a.raceShow))
	a.Site.HotAll("GET /race/r/{slug}", a.raceHot)
	// The waiting room's page reads the ticket alone: no session.
	a.Site.Early("GET /race/r/{slug}/queue", http.HandlerFunc(a.roomShow))
	mux.HandleFunc("GET /race/r/{slug}/register", a.registerShow)
	mux.HandleFunc("POST /race/r/{slug}/register", a.registerStart)
	mux.HandleFunc("POST /race/r/{slug}/account", a.registerAccount)
	mux.HandleFunc("GET /race/r/{slug}/early", a.earlyShow)
	mux.HandleFunc("POST /race/r/{slug}/early", a.earlyStart)
	mux.HandleFunc("GET /race/r/{slug}/events/{eid}/sold-out", a.soldOut)
	mux.HandleFunc("GET /race/r/{slug}/events/{eid}/lottery", a.soldOut) // the same page: the list and the draw
	mux.HandleFunc("POST /race/r/{slug}/events/{eid}/waitlist", a.waitlistPost)
	mux.HandleFunc("POST /race/r/{slug}/events/{eid}/invitation", a.invitationPost)
	entry := "/race/r/{slug}/entry/{hold}"
	mux.HandleFunc("GET "+entry+"/details", a.detailsShow)
	mux.HandleFunc("POST "+entry+"/details", a.detailsSave)
	mux.HandleFunc("GET "+entry+"/team", a.teamShow)
	mux.HandleFunc("POST "+entry+"/team", a.teamSave)
	mux.HandleFunc("GET "+entry+"/donation", a.donationShow)
	mux.HandleFunc("POST "+entry+"/donation", a.donationSave)
	mux.HandleFunc("GET "+entry+"/store", a.storeShow)
	mux.HandleFunc("POST "+entry+"/store", a.storeSave)
	mux.HandleFunc("GET "+entry+"/waiver", a.waiverShow)
	mux.HandleFunc("POST "+entry+"/waiver", a.waiverSave)
	mux.HandleFunc("GET "+entry+"/review", a.reviewShow)
	mux.HandleFunc("GET "+entry+"/pay", a.payShow)
	mux.HandleFunc("POST "+entry+"/code", a.codeApply)
	mux.HandleFunc("POST "+entry+"/pay", a.payPost)
	mux.HandleFunc("GET "+entry+"/wait", a.waitShow)
	mux.HandleFunc("GET "+entry+"/done", a.doneShow)
	mux.HandleFunc("GET "+entry+"/leave", a.leaveShow)
	mux.HandleFunc("POST "+entry+"/leave", a.leave)
	mux.HandleFunc("GET "+entry+"/change", a.changeShow)
	mux.HandleFunc("POST "+entry+"/change", a.changeSave)
	mux.HandleFunc("GET "+entry+"/cancel", a.cancelOwnShow)
	mux.HandleFunc("POST "+entry+"/cancel", a.cancelOwn)

	// Directors.
	admin := "/race/r/{slug}/admin"
	mux.HandleFunc("GET "+admin, a.adminShow)
	mux.HandleFunc("GET "+admin+"/basics", a.basicsShow)
	mux.HandleFunc("POST "+admin+"/basics", a.basicsSave)
	mux.Handle("POST "+admin+"/logo", web.MaxBody(logoBodyLimit, http.HandlerFunc(a.logoPost)))
	mux.HandleFunc("GET "+admin+"/events", a.eventsShow)
	mux.HandleFunc("POST "+admin+"/events", a.eventAdd)
	mux.HandleFunc("POST "+admin+"/events/{eid}", a.eventSave)
	mux.HandleFunc("POST "+admin+"/events/{eid}/delete", a.eventDelete)
	mux.HandleFunc("GET "+admin+"/events/{eid}/entrants", a.entrantsShow)
	mux.HandleFunc("GET "+admin+"/events/{eid}/entrants.csv", a.entrantsCSV)
	mux.HandleFunc("GET "+admin+"/events/{eid}/checkin", a.checkinShow)
	mux.HandleFunc("GET "+admin+"/events/{eid}/message", a.messageShow)
	mux.HandleFunc("POST "+admin+"/events/{eid}/message", a.messagePost)
	mux.HandleFunc("GET "+admin+"/registrations/{rid}/cancel", a.registrationCancelShow)
	mux.HandleFunc("POST "+admin+"/registrations/{rid}/cancel", a.registrationCancel)
	mux.HandleFunc("GET "+admin+"/extras", a.extrasShow)
	mux.HandleFunc("POST "+admin+"/extras", a.extrasSave)
	mux.HandleFunc("POST "+admin+"/items", a.itemAdd)
	mux.HandleFunc("POST "+admin+"/items/{iid}", a.itemSave)
	mux.HandleFunc("POST "+admin+"/items/{iid}/delete", a.itemDelete)
	mux.HandleFunc("GET "+admin+"/codes", a.codesShow)
	mux.HandleFunc("POST "+admin+"/codes", a.codeAdd)
	mux.HandleFunc("POST "+admin+"/codes/{cid}/delete", a.codeDelete)
	mux.HandleFunc("GET "+admin+"/rehearsals", a.rehearsalsShow)
	mux.HandleFunc("POST "+admin+"/rehearsals", a.rehearsalStart)
	mux.HandleFunc("GET "+admin+"/rehearsals/{rid}", a.rehearsalShow)
	mux.HandleFunc("GET "+admin+"/rehearsals/{rid}/progress", a.rehearsalProgress)
	mux.HandleFunc("POST "+admin+"/rehearsals/{rid}/stop", a.rehearsalStop)
	mux.HandleFunc("POST "+admin+"/rehearsals/{rid}/comment", a.rehearsalComment)
	mux.HandleFunc("GET "+admin+"/text", a.textShow)
	mux.HandleFunc("POST "+admin+"/text", a.textSave)
	mux.HandleFunc("POST "+admin+"/publish", a.publish)
	mux.HandleFunc("POST "+admin+"/directors", a.directorAdd)
	mux.HandleFunc("POST "+admin+"/directors/remove", a.directorRemove)
	mux.HandleFunc("POST "+admin+"/unpublish", a.unpublish)
	mux.HandleFunc("GET "+admin+"/delete", a.deleteShow)
	mux.HandleFunc("POST "+admin+"/delete", a.deletePost)
	mux.HandleFunc("POST "+admin+"/registrations/{rid}/checkin", a.checkinPost)
	mux.HandleFunc("POST "+admin+"/policy", a.policySave)
	mux.HandleFunc("GET "+admin+"/events/{eid}/close", a.eventCloseShow)
	mux.HandleFunc("POST "+admin+"/events/{eid}/close", a.eventClose)
	mux.HandleFunc("POST "+admin+"/events/{eid}/reopen", a.eventReopen)
	mux.HandleFunc("GET "+admin+"/registrations/{rid}/edit", a.registrantShow)
	mux.HandleFunc("POST "+admin+"/registrations/{rid}/edit", a.registrantSave)
	a.resultsRoutes(mux)
}

func raceURL(slug string) string        { return "/race/r/" + slug }
func adminURL(slug string) string       { return "/race/r/" + slug + "/admin" }
func entryURL(slug, hold string) string { return "/race/r/" + slug + "/entry/" + hold }
func doneURL(slug, hold string) string  { return entryURL(slug, hold) + "/done" }
func eventURL(slug string, ev int64) string {
	return "/race/r/" + slug + "/events/" + strconv.FormatInt(ev, 10)
}
func soldOutURL(slug string, ev int64) string { return eventURL(slug, ev) + "/sold-out" }
func lotteryURL(slug string, ev int64) string { return eventURL(slug, ev) + "/lottery" }

// pathInt is path value name as a positive id; anything else is not found.
func pathInt(r *http.Request, name string) (int64, error) {
	return parseID(r.PathValue(name))
}

// parseID reads an id in a path: a positive decimal number, else not found.
func parseID(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, errs.ErrNotFound
	}
	return n, nil
}

func (a *App) redirect(w http.ResponseWriter, r *http.Request, to string) {
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// form parses a small form; false after answering a bad one.
func (a *App) form(w http.ResponseWriter, r *http.Request) bool {
	if err := web.ParseForm(r, 64<<10); err != nil {
		a.Site.Error(w, r, err)
		return false
	}
	return true
}
