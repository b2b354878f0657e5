package music

import (
	"context"
	"log/slog"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/module"
)

// Module is music as internal/app hosts it.
func Module() module.Module {
	return module.Module{
		Name:       "music",
		Blurb:      "Share songs and playlists with friends; comments, likes, hashtags and what is trending.",
		Migrations: Migrations,
		Static:     StaticFS(),
		Seed: &module.Seed{
			Help:  "1,000 users (one password), 50,000 songs, 50,000 audios, 100,000 comments, likes, friends",
			Flags: seedFlags,
		},
		Scenarios: LoadScenarios,
		Roles:     []module.Role{{Name: RoleModerator, Help: "sees the reports, removes anyone's posts, dismisses reports"}},
		New: func(ctx context.Context, c module.Core) (module.App, error) {
			return New(ctx, Deps{DB: c.DB, Cache: c.Cache, Local: c.Local, Site: c.Site, Log: c.Log, Bus: c.Bus,
				Live: c.Live, Auth: c.Auth, Versions: c.Versions, Assets: c.Assets, Media: c.Media})
		},
	}
}

// LoadDemo implements module.Demoer.
func (a *App) LoadDemo(ctx context.Context, log *slog.Logger) error {
	if err := a.Demo(ctx); err != nil {
		return err
	}
	log.Info("music demo: two friends and their songs", "url", "/music/")
	return nil
}

// ForgetAccount implements module.AccountHook.
func (a *App) ForgetAccount(ctx context.Context, tx *db.Tx, userID int64) error {
	return a.svc.ForgetAccount(ctx, tx, userID)
}

// AccountForgotten implements module.AccountHook.
func (a *App) AccountForgotten(ctx context.Context, userID int64) {
	a.svc.AccountForgotten(ctx, userID)
}

// RoleModerator is music's one role (module.Module.Roles): its holders see
// the reports and remove anyone's posts. Grant it with
// `tutti role grant music moderator USERNAME`.
const RoleModerator = "moderator"
