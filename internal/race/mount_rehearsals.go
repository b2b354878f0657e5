package race

import (
	"context"
	"errors"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/race/rehearsals"
)

// What race gives package rehearsals (the directors' load rehearsals): a
// race copied for one, the wizard's rush aimed at the copy, its
// registrations cancelled and the copy deleted.

// newRehearsals builds the rehearsal console on a's services.
func (a *App) newRehearsals() *rehearsals.App {
	return rehearsals.New(rehearsals.Deps{DB: a.DB, Site: a.Site, Log: a.Log, Pay: a.Pay, Jobs: a.Jobs, Listening: a.Listening,
		Chrome: chrome{a}, Now: a.Now, Race: rehearsals.Race{Copy: a.copyForRehearsal, Rush: rehearsalRush,
			Cancel: a.svc.cancelRehearsal, Drop: a.store.dropCopy, UsersGone: func() { a.store.forgetHolds(); a.svc.usersGone() }}})
}

// Rehearsals is the load rehearsal console, for tools and tests.
func (a *App) Rehearsals() *rehearsals.App { return a.rehearsals }

// rehearsalsURL is race slug's rehearsal console.
func rehearsalsURL(slug string) string { return rehearsals.URL(slug) }

// copyForRehearsal copies race src, as it stands in tx, for rehearsal id
// (Store.copyRace).
func (a *App) copyForRehearsal(ctx context.Context, tx *db.Tx, src *races.Race, id, director int64, opens, closes, now time.Time) (*races.Race, map[int64]int64, error) {
	r, err := a.store.RaceBySlug(ctx, tx, src.Slug)
	if err != nil {
		return nil, nil, err
	}
	c, copied, err := a.store.copyRace(ctx, tx, r, id, director, opens, closes, now)
	if err != nil {
		return nil, nil, err
	}
	return &c.Race, copied, nil
}

// rehearsalRush is the opening rush of w, as the burst scenario runs it,
// and its aim at a rehearsal's copy.
func rehearsalRush(w rehearsals.Wizard) (*load.Scenario, func(rehearsals.Aim)) {
	wz := &wizard{assets: w.Assets, domain: w.Domain, delay: w.Delay, click: w.Click}
	sc := wz.rush(&load.Scenario{Name: "race-rehearsal", Description: "a director's rehearsal of the opening rush"}, w.Runners, w.Within)
	return sc, func(to rehearsals.Aim) {
		wz.ids = &SeedIDs{Race: to.Slug, Sessions: to.Sessions}
		wz.event, wz.events = to.Event, to.Events
	}
}

// cancelRehearsal cancels and refunds registrations regs of rehearsal copy
// id (slug) in one edit: those cancelled already (by another instance's
// sweep) are left. It returns how many it cancelled.
func (s *Service) cancelRehearsal(ctx context.Context, id int64, slug string, regs []int64) (int, error) {
	done := 0
	err := s.editRace(ctx, id, slug, func(tx *db.Tx) error {
		done = 0
		for _, reg := range regs {
			_, err := s.cancelIn(ctx, tx, id, reg)
			if errors.Is(err, errCancelledAlready) {
				continue
			}
			if err != nil {
				return err
			}
			done++
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return done, nil
}
