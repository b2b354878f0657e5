package results

import (
	"time"

	"github.com/a-h/templ"

	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/version"
	"github.com/tutti-dev/tutti/internal/web"
)

// Chrome is what the results' pages share with race's other pages: a
// page's head (race's style sheet, the signed-in user) and the directors'
// navigation.
type Chrome interface {
	Head(title, user string, scripts ...string) web.Head
	AdminNav(r *races.Race, current string) templ.Component
}

// Deps are what the results need: the core's services, race's chrome
// and its races.
type Deps struct {
	DB       *db.DB
	Cache    *cache.Cache
	Site     *web.Site
	Versions version.Versions // races' stamps (races.VersionScope)
	Chrome   Chrome
	Races    Races
	Now      func() time.Time // nil: time.Now
}

// App is the results' pages, mounted by race (Routes).
type App struct {
	Deps
	store *Store
	svc   *Service
	pages *cache.Pages // results pages and name suggestions, rendered
}

// New builds the results' pages.
func New(d Deps) *App {
	if d.Now == nil {
		d.Now = time.Now
	}
	a := &App{Deps: d, store: NewStore(d.DB)}
	a.svc = &Service{store: a.store, races: d.Races, now: d.Now}
	a.pages = cache.NewPages(d.Cache, "race:results", pageTTL, 16<<20)
	return a
}

// Service is the results' service, for tools and tests.
func (a *App) Service() *Service { return a.svc }

// Store is the results' store, for tools and tests.
func (a *App) Store() *Store { return a.store }
