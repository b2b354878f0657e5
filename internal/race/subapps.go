package race

import (
	"context"

	"github.com/a-h/templ"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/race/results"
	"github.com/tutti-dev/tutti/internal/race/waitlist"
	"github.com/tutti-dev/tutti/internal/web"
)

// What race's sub-packages (results, waitlist) are given of it: its races,
// its edits, its registration, its notices and its pages' chrome, as
// functions, so that none imports race.

// chrome is race's page head and directors' navigation, for results.Chrome
// and waitlist.Chrome.
type chrome struct{ a *App }

func (c chrome) Head(title, user string, scripts ...string) web.Head {
	return c.a.head(title, user, scripts...)
}

func (c chrome) AdminNav(r *races.Race, current string) templ.Component {
	return adminNav(&Race{Race: *r}, current)
}

// publishedRace is race slug as runners see it (Service.Race).
func (a *App) publishedRace(ctx context.Context, slug string) (*races.Race, error) {
	r, err := a.svc.Race(ctx, slug)
	if err != nil {
		return nil, err
	}
	return &r.Race, nil
}

// directedRace is race slug for its director u (Service.Directed).
func (a *App) directedRace(ctx context.Context, u *auth.User, slug string) (*races.Race, error) {
	d, err := a.svc.Directed(ctx, u, slug)
	if err != nil {
		return nil, err
	}
	return &d.Race.Race, nil
}

// editRace runs write in a transaction that raises d's race's version
// (Service.edit).
func (a *App) editRace(ctx context.Context, d *races.Directing, write func(tx *db.Tx) error) error {
	return a.svc.editRace(ctx, d.Race.ID, d.Race.Slug, write)
}

// tellLetters tells runners what the waiting list made of them
// (waitlist.Deps.Tell): notices kept and mailed in tx (Service.tell).
func (a *App) tellLetters(ctx context.Context, tx *db.Tx, n int, at func(i int) waitlist.Letter) error {
	return a.svc.tell(ctx, tx, n, func(i int) letter {
		l := at(i)
		return letter{Notice{UserID: l.UserID, RaceID: l.RaceID, EventID: l.EventID, Subject: l.Subject, Body: l.Body,
			Link: l.Link, LinkText: l.LinkText}, l.To, l.Base}
	})
}

// resultsScenario is the results' load scenario, on the seeded event
// with results by default.
func resultsScenario(opts load.Options) (*load.Scenario, error) {
	return results.Scenario(opts, func(file string) (string, int64, error) {
		ids, err := LoadSeedIDs(file)
		if err != nil {
			return "", 0, err
		}
		return ids.Race, ids.ResultsEvent, nil
	})
}

// resultsURL and resultsAdminURL are event ev's results pages.
func resultsURL(slug string, ev int64) string      { return results.URL(slug, ev) }
func resultsAdminURL(slug string, ev int64) string { return results.AdminURL(slug, ev) }
