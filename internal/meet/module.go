package meet

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/module"
)

// Module is meet as internal/app hosts it.
func Module() module.Module {
	return module.Module{
		Name:       "meet",
		Blurb:      "Find the time that suits everyone: group polls with preference tiers, a paintable grid and a heat map.",
		Migrations: Migrations,
		Static:     StaticFS(),
		New: func(_ context.Context, c module.Core) (module.App, error) {
			return New(Deps{Assets: c.Assets, DB: c.DB, Cache: c.Cache, Site: c.Site, Log: c.Log, Bus: c.Bus, Live: c.Live, BaseURL: c.Config.BaseURL, Versions: c.Versions})
		},
		Seed: &module.Seed{
			Help:  "1,000 polls, 10,000 participants, 20,000 timeframes, 10,000 comments",
			Flags: seedFlags,
		},
		Scenarios: func() map[string]load.Factory { return map[string]load.Factory{"meet": LoadScenario} },
	}
}

// LoadDemo implements module.Demoer: the demo poll, its links in the log.
func (a *App) LoadDemo(ctx context.Context, log *slog.Logger) error {
	pub, admin, err := a.Demo(ctx)
	if err != nil {
		return err
	}
	log.Info("meet demo poll", "poll", pub, "admin", admin)
	return nil
}

// seedFlags is `tutti seed meet`.
func seedFlags(fs *flag.FlagSet) (func() error, module.SeedFunc) {
	size := SeedDefault
	fs.IntVar(&size.Polls, "polls", size.Polls, "polls to create")
	fs.IntVar(&size.Participants, "participants", size.Participants, "participants, spread over the polls")
	fs.IntVar(&size.Timeframes, "timeframes", size.Timeframes, "timeframes, spread over the participants")
	fs.IntVar(&size.Comments, "comments", size.Comments, "comments")
	check := func() error {
		if size.Polls < 1 || size.Participants < 1 || size.Timeframes < 0 || size.Comments < 0 {
			return errors.New("need at least one poll and one participant")
		}
		return nil
	}
	return check, func(ctx context.Context, d *db.DB, run module.SeedRun) (string, error) {
		ids, err := Seed(ctx, d, size, run.Out, run.Progress, run.RNGSeed)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("seeded meet: %d polls, %d participants, %d timeframes, %d comments; ids in %s",
			len(ids.Polls), len(ids.Participants), size.Timeframes, size.Comments, run.Out), nil
	}
}
