package rehearsals

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/web"
)

// Chrome is what the console's pages share with race's other pages: a
// page's head (race's style sheet and scripts, the signed-in user).
type Chrome interface {
	Head(title, user string, scripts ...string) web.Head
}

// Race is what a rehearsal needs of race, as functions.
type Race struct {
	// Copy stores in tx the copy of race src for rehearsal id: published,
	// never listed, its events to come open from opens to closes with the
	// same places, prices and extras, nobody registered; directed by
	// director. It returns the copy with its events, and their ids by the
	// originals'.
	Copy func(ctx context.Context, tx *db.Tx, src *races.Race, id, director int64, opens, closes, now time.Time) (*races.Race, map[int64]int64, error)
	// Rush is the opening rush of w as a load scenario (race's wizard,
	// as `tutti load run --scenario race-burst` runs it), and the function
	// that aims it at a copy once the copy exists.
	Rush func(w Wizard) (*load.Scenario, func(Aim))
	// Cancel cancels and refunds registrations regs of copy (slug) in one
	// edit of it; it returns how many it cancelled (those cancelled
	// already are left).
	Cancel func(ctx context.Context, copy int64, slug string, regs []int64) (int, error)
	// Drop deletes copy, with its rows, in tx.
	Drop func(ctx context.Context, tx *db.Tx, copy int64) error
	// UsersGone is told after runners' accounts were deleted.
	UsersGone func()
}

// Wizard is how a rehearsal's runners go through the wizard.
type Wizard struct {
	Runners      int
	Within       time.Duration    // runners arrive at random within it
	Delay, Click [2]time.Duration // think time on a page, and to the sign-up link
	Assets       bool             // runners fetch the pages' style sheets and scripts
	Domain       string           // the runners' e-mail domain
}

// Aim is what a rush runs against: the copy (slug), the runners' session
// cookies, and the event (or, Event 0, one of Events at random each).
type Aim struct {
	Slug     string
	Sessions []string
	Event    int64
	Events   []int64
}

// Deps are what rehearsals need: the core's services, race's chrome, and
// race itself.
type Deps struct {
	DB   *db.DB
	Site *web.Site
	Log  *slog.Logger
	// Pay must move no money (pay.Gateway.MovesNoMoney) for a rehearsal
	// to run; Jobs refunds its registrations (nil: none can run).
	Pay  pay.Gateway
	Jobs *jobs.Queue
	// Listening is the instance's listen address once it listens: the
	// runners reach it over loopback; nil, "" or not on loopback: none can
	// run here.
	Listening func() string
	Chrome    Chrome
	Race      Race
	Now       func() time.Time // nil: time.Now
}

// App is the rehearsal console, mounted by race (Routes).
type App struct {
	Deps
	store *store
	svc   *service
}

// New builds the console. Close stops the rehearsals it runs.
func New(d Deps) *App {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	a := &App{Deps: d, store: &store{db: d.DB}}
	a.svc = &service{Deps: &a.Deps, store: a.store, running: &sync.WaitGroup{}}
	a.svc.bg, a.svc.stop = context.WithCancel(context.Background())
	return a
}

// Sweep is rehearsals' part of race's sweep: registrations whose refund
// delay passed cancelled and refunded, rehearsals whose instance died
// given up, copies and runners of those long over removed. It returns the
// registrations refunded.
func (a *App) Sweep(ctx context.Context) (int, error) { return a.svc.sweep(ctx) }

// Close stops the rehearsals this instance runs (their reports cover the
// runners until then) and waits for them to store their reports, up to
// wait.
func (a *App) Close(wait time.Duration) {
	a.svc.stop()
	done := make(chan struct{})
	go func() { a.svc.running.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(wait):
		a.Log.Warn("race: a rehearsal did not end within the shutdown's wait", "wait", wait)
	}
}
