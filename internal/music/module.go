package music

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/tutti-dev/tutti/internal/config"
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
		Flags:     settingsFlags,
		New: func(ctx context.Context, c module.Core) (module.App, error) {
			d := Deps{DB: c.DB, Cache: c.Cache, Local: c.Local, Site: c.Site, Log: c.Log, Bus: c.Bus,
				Live: c.Live, Auth: c.Auth, Versions: c.Versions, Assets: c.Assets, Media: c.Media}
			if c.Config.RateLimits {
				d.Limits = NewLimits(c.Limiter, module.SettingsOf(c, "music", DefaultSettings()).WritesPerMinute)
			}
			return New(ctx, d)
		},
	}
}

// Settings are music's own settings (module.Module.Flags).
type Settings struct {
	// WritesPerMinute refills each user's buckets of posts (links and
	// uploads), comments, likes and friend requests (Limits: bursts of
	// 10, 20, 30 and 10); past them 429 + Retry-After. 0: no limit; off
	// with --rate-limits=false too.
	WritesPerMinute int
}

// DefaultSettings are music's settings when none are given.
func DefaultSettings() Settings { return Settings{WritesPerMinute: 30} }

// Validate checks the settings after parsing (config.Config.Validate).
func (s *Settings) Validate() error {
	if s.WritesPerMinute < 0 {
		return fmt.Errorf("music-writes-per-minute %d: want 0 or more", s.WritesPerMinute)
	}
	return nil
}

// settingsFlags declares Settings: --music-writes-per-minute.
func settingsFlags(cs *config.Settings) any {
	s := DefaultSettings()
	cs.Int(&s.WritesPerMinute, "music-writes-per-minute", "TUTTI_MUSIC_WRITES_PER_MINUTE", s.WritesPerMinute,
		"posts, comments, likes and friend requests a user may send per minute, each in bursts; 0 means no limit")
	return &s
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
