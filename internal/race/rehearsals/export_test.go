package rehearsals

import (
	"context"
	"time"

	"github.com/tutti-dev/tutti/internal/race/races"
)

// What the tests of package rehearsals_test (which run race whole) reach
// inside.

type (
	Rehearsal = rehearsal
	Progress  = progress
	Input     = input
)

var Defaults = defaults

const (
	Abandoned = abandoned
	Domain    = domain
)

func Prefix(id int64) string { return prefix(id) }

func DefaultInput() Input { return defaults.input() }

func (a *App) Start(ctx context.Context, d *races.Directing, in Input) (*Rehearsal, error) {
	return a.svc.start(ctx, d, in)
}

func (a *App) Add(ctx context.Context, rh *Rehearsal, since time.Time) error {
	return a.store.add(ctx, rh, since)
}

func (a *App) List(ctx context.Context, raceID int64) ([]*Rehearsal, error) {
	return a.store.list(ctx, raceID, 50)
}

func (a *App) Get(ctx context.Context, raceID, id int64) (*Rehearsal, error) {
	return a.store.get(ctx, raceID, id)
}

func (a *App) Beat(ctx context.Context, id int64, status string, p Progress, report string, now time.Time) (string, error) {
	return a.store.beat(ctx, id, status, p, report, "", now)
}

func (a *App) Stop(ctx context.Context, raceID, id int64) error { return a.store.stop(ctx, raceID, id) }

func (a *App) Refunds(ctx context.Context, rh *Rehearsal) (made, refunded int, err error) {
	return a.svc.refunds(ctx, rh)
}

// Copy copies race src for rehearsal id, as a rehearsal does.
func (a *App) Copy(ctx context.Context, src *races.Race, id, director int64, opens, closes, now time.Time) (*races.Race, map[int64]int64, error) {
	return a.svc.copy(ctx, src, id, director, opens, closes, now)
}

// OnBeat has f told of each heartbeat a rehearsal stores (the status it
// has then, its gauges' stage); the rehearsal waits for f.
func (a *App) OnBeat(f func(status, stage string)) {
	a.svc.stored = func(status string, p progress) { f(status, p.Stage) }
}

// Wait waits for the rehearsals this instance runs to end.
func (a *App) Wait() { a.svc.running.Wait() }
