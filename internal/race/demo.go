package race

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/tutti-dev/tutti/internal/errs"
)

// LoadDemo implements module.Demoer: a published race directed by the demo
// user, open for registration now, unless one exists.
func (a *App) LoadDemo(ctx context.Context, log *slog.Logger) error {
	u, err := a.Auth.ByUsername(ctx, "demo")
	if err != nil {
		return err
	}
	rows, err := a.store.DirectedBy(ctx, u.ID)
	if err != nil || len(rows) > 0 {
		return err
	}
	now := a.Now()
	day := now.AddDate(0, 2, 0).Format(time.DateOnly)
	r, err := a.svc.CreateRace(ctx, u, RaceInput{Name: "Harbour City Marathon", Location: "Harbour City waterfront", Date: day,
		TZ: "Europe/Berlin", Currency: "eur", Description: "A flat, fast course along the water, with a 10K and a 5K for everyone else."})
	if err != nil {
		return err
	}
	// Each step as a director's request does: the race loaded afresh.
	step := func(do func(d *Directing) error) error {
		d, err := a.svc.Directed(ctx, u, r.Slug)
		if err != nil {
			return err
		}
		return do(d)
	}
	loc := r.Loc()
	opens, closes := now.In(loc).Add(-time.Hour), now.In(loc).AddDate(0, 1, 0)
	for _, e := range []EventInput{
		{Name: "Marathon", StartTime: "08:30", Price: "65", Cap: "3000"},
		{Name: "10K", StartTime: "10:00", Price: "30", Cap: "2000"},
		{Name: "5K fun run", StartTime: "11:00", Price: "12.50", Cap: "500"},
	} {
		e.OpensDate, e.OpensTime = opens.Format(time.DateOnly), opens.Format("15:04")
		e.ClosesDate, e.ClosesTime = closes.Format(time.DateOnly), closes.Format("15:04")
		if err := step(func(d *Directing) error { return a.svc.AddEvent(ctx, d, e) }); err != nil {
			return err
		}
	}
	if err := step(func(d *Directing) error {
		return a.svc.UpdateText(ctx, d, TextInput{
			Info:   "Start and finish at Pier 4. Bag drop opens at 07:00. Bib pickup the day before, 10:00-18:00, at the Harbour Hall.",
			Waiver: "I know that running a race is a strenuous activity and that I should not enter unless I am fit and trained. I accept the risks of taking part and release the organizers from liability for injury, loss or damage.",
		})
	}); err != nil {
		return err
	}
	if err := step(func(d *Directing) error { return a.svc.Publish(ctx, d) }); err != nil && !errors.Is(err, errs.ErrConflict) {
		return err
	}
	log.Info("race demo race", "race", raceURL(r.Slug))
	return nil
}
