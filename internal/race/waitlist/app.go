package waitlist

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/web"
)

// DefaultInviteFor is how long an invitation keeps its place.
const DefaultInviteFor = 24 * time.Hour

// Chrome is what the waiting list's pages share with race's other pages:
// a page's head (race's style sheet, the signed-in user).
type Chrome interface {
	Head(title, user string, scripts ...string) web.Head
}

// Races is what the waiting list needs of race: its races, its events'
// counts, and its registration.
type Races struct {
	// Published is race slug for runners (published only): races.ErrNoRace
	// else.
	Published func(ctx context.Context, slug string) (*races.Race, error)
	// Event is event id as it is now (a published race's, cached, may be
	// seconds old).
	Event func(ctx context.Context, id int64) (races.Event, error)
	// Standing is whether user is registered for event, or holds a place
	// in it: either needs no list.
	Standing func(ctx context.Context, eventID, userID int64) (registered, holding bool, err error)
	// Take registers u with the place their invitation to event eventID of
	// race slug kept (Service.Accept, in race's registration), and is the
	// page they go on at: the registration's next page, or their
	// confirmation if they registered meanwhile.
	Take func(ctx context.Context, u *auth.User, slug string, eventID int64) (next string, err error)
}

// Letter is what a runner is told, kept as a notice on their page and
// mailed: about event EventID of race RaceID, with a link to what to do
// next (a path on the site), mailed to To with links from Base (the origin
// the runner joined on; "" for the site's).
type Letter struct {
	UserID, RaceID, EventID int64
	Subject, Body           string
	Link, LinkText          string
	To, Base                string
}

// Deps are what the waiting list needs: the core's services, race's
// chrome, races and notices.
type Deps struct {
	DB     *db.DB
	Site   *web.Site
	Chrome Chrome
	Races  Races
	// Tell keeps count letters, at(i) the i-th, as notices and mails them,
	// in tx: a rolled-back change tells nobody.
	Tell func(ctx context.Context, tx *db.Tx, count int, at func(i int) Letter) error
	// InviteFor is how long an invitation keeps its place (0:
	// DefaultInviteFor).
	InviteFor time.Duration
	Now       func() time.Time // nil: time.Now
}

// App is the waiting list's pages, mounted by race (Routes).
type App struct {
	Deps
	svc *Service
}

// New builds the waiting list.
func New(d Deps) *App {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.InviteFor <= 0 {
		d.InviteFor = DefaultInviteFor
	}
	a := &App{Deps: d}
	a.svc = &Service{store: &store{db: d.DB}, db: d.DB, races: d.Races, tell: d.Tell, now: d.Now, inviteFor: d.InviteFor}
	return a
}

// Service is the waiting list's service: race's sweep, registration and
// account deletion call it (and tests).
func (a *App) Service() *Service { return a.svc }

// Routes mounts the waiting list's pages on rt (race's router): the pages
// for everyone, the forms in a signed-in group (a visitor is sent to sign
// in first, and nothing is joined).
func (a *App) Routes(rt *web.Router) {
	rt.Get("/r/{slug}/events/{eid}/sold-out", a.soldOut)
	rt.Get("/r/{slug}/events/{eid}/lottery", a.soldOut) // the same page: the list and the draw
	signed := rt.Group(auth.SignedIn(nil))
	signed.Post("/r/{slug}/events/{eid}/waitlist", a.waitlistPost)
	signed.Post("/r/{slug}/events/{eid}/invitation", a.invitationPost)
}

// eventURL is event ev of race slug, under which the list's pages are.
func eventURL(slug string, ev int64) string {
	return races.URL(slug) + "/events/" + strconv.FormatInt(ev, 10)
}

// SoldOutURL is event ev's sold-out page, its waiting list's;
// LotteryURL the same page of a lottery event.
func SoldOutURL(slug string, ev int64) string { return eventURL(slug, ev) + "/sold-out" }
func LotteryURL(slug string, ev int64) string { return eventURL(slug, ev) + "/lottery" }

// form parses a small form; false after answering a bad one.
func (a *App) form(w http.ResponseWriter, r *http.Request) bool {
	if err := web.ParseForm(r, 64<<10); err != nil {
		a.Site.Error(w, r, err)
		return false
	}
	return true
}
