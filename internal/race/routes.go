package race

import (
	"net/http"
	"strconv"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/race/waitlist"
	"github.com/tutti-dev/tutti/internal/web"
)

// Routes mounts race under /race/ (rt's prefix). The director's pages,
// /race/r/{slug}/admin..., are the admin group: signed in (else the
// sign-in page, or 401 in JSON), then the directing middleware loads the
// race once and checks its director (directedOf gives it to handlers).
func (a *App) Routes(rt *web.Router) {
	signed := rt.Group(auth.SignedIn(nil))
	a.Site.Static(a.assets)
	rt.Get("/{$}", a.raceList)
	rt.Get("/mine", a.mine)
	rt.Get("/new", a.raceNew)
	rt.Handle(http.MethodPost, "/races", web.MaxBody(logoBodyLimit, http.HandlerFunc(a.raceCreate)))

	// Runners.
	// The race page is everyone's alike: no session loaded for it, and the
	// hot lane answers it whatever cookies a runner sends.
	a.Site.Early(rt.Pattern("GET", "/r/{slug}"), http.HandlerFunc(a.raceShow))
	a.Site.HotAll(rt.Pattern("GET", "/r/{slug}"), a.raceHot)
	// The waiting room's page reads the ticket alone: no session.
	a.Site.Early(rt.Pattern("GET", "/r/{slug}/queue"), http.HandlerFunc(a.roomShow))
	rt.Get("/r/{slug}/register", a.registerShow)
	rt.Post("/r/{slug}/register", a.registerStart)
	rt.Post("/r/{slug}/account", a.registerAccount)
	rt.Get("/r/{slug}/early", a.earlyShow)
	rt.Post("/r/{slug}/early", a.earlyStart)
	a.waitlist.Routes(rt) // sold out: the waiting list, the lottery, an invitation
	entry := rt.Route("/r/{slug}/entry/{hold}")
	entry.Get("/details", a.detailsShow)
	entry.Post("/details", a.detailsSave)
	entry.Get("/team", a.teamShow)
	entry.Post("/team", a.teamSave)
	entry.Get("/donation", a.donationShow)
	entry.Post("/donation", a.donationSave)
	entry.Get("/store", a.storeShow)
	entry.Post("/store", a.storeSave)
	entry.Get("/waiver", a.waiverShow)
	entry.Post("/waiver", a.waiverSave)
	entry.Get("/review", a.reviewShow)
	entry.Get("/pay", a.payShow)
	entry.Post("/code", a.codeApply)
	entry.Post("/pay", a.payPost)
	entry.Get("/wait", a.waitShow)
	entry.Get("/done", a.doneShow)
	entry.Get("/leave", a.leaveShow)
	entry.Post("/leave", a.leave)
	entry.Get("/change", a.changeShow)
	entry.Post("/change", a.changeSave)
	entry.Get("/cancel", a.cancelOwnShow)
	entry.Post("/cancel", a.cancelOwn)

	// Directors.
	admin := signed.Route("/r/{slug}/admin", a.directing)
	admin.Get("", a.adminShow)
	admin.Get("/basics", a.basicsShow)
	admin.Post("/basics", a.basicsSave)
	admin.Handle(http.MethodPost, "/logo", web.MaxBody(logoBodyLimit, http.HandlerFunc(a.logoPost)))
	admin.Get("/events", a.eventsShow)
	admin.Post("/events", a.eventAdd)
	admin.Post("/events/{eid}", a.eventSave)
	admin.Post("/events/{eid}/delete", a.eventDelete)
	admin.Get("/events/{eid}/entrants", a.entrantsShow)
	admin.Get("/events/{eid}/entrants.csv", a.entrantsCSV)
	admin.Get("/events/{eid}/checkin", a.checkinShow)
	admin.Get("/events/{eid}/message", a.messageShow)
	admin.Post("/events/{eid}/message", a.messagePost)
	admin.Get("/registrations/{rid}/cancel", a.registrationCancelShow)
	admin.Post("/registrations/{rid}/cancel", a.registrationCancel)
	admin.Get("/extras", a.extrasShow)
	admin.Post("/extras", a.extrasSave)
	admin.Post("/items", a.itemAdd)
	admin.Post("/items/{iid}", a.itemSave)
	admin.Post("/items/{iid}/delete", a.itemDelete)
	admin.Get("/codes", a.codesShow)
	admin.Post("/codes", a.codeAdd)
	admin.Post("/codes/{cid}/delete", a.codeDelete)
	admin.Get("/text", a.textShow)
	admin.Post("/text", a.textSave)
	admin.Post("/publish", a.publish)
	admin.Post("/directors", a.directorAdd)
	admin.Post("/directors/remove", a.directorRemove)
	admin.Post("/unpublish", a.unpublish)
	admin.Get("/delete", a.deleteShow)
	admin.Post("/delete", a.deletePost)
	admin.Post("/registrations/{rid}/checkin", a.checkinPost)
	admin.Post("/policy", a.policySave)
	admin.Get("/events/{eid}/close", a.eventCloseShow)
	admin.Post("/events/{eid}/close", a.eventClose)
	admin.Post("/events/{eid}/reopen", a.eventReopen)
	admin.Get("/registrations/{rid}/edit", a.registrantShow)
	admin.Post("/registrations/{rid}/edit", a.registrantSave)
	a.results.Routes(rt, admin)
	a.rehearsals.Routes(admin)
}

func raceURL(slug string) string              { return "/race/r/" + slug }
func adminURL(slug string) string             { return "/race/r/" + slug + "/admin" }
func entryURL(slug, hold string) string       { return "/race/r/" + slug + "/entry/" + hold }
func doneURL(slug, hold string) string        { return entryURL(slug, hold) + "/done" }
func soldOutURL(slug string, ev int64) string { return waitlist.SoldOutURL(slug, ev) }
func lotteryURL(slug string, ev int64) string { return waitlist.LotteryURL(slug, ev) }

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
