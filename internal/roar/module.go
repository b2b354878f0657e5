package roar

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/module"
)

// Module is roar as internal/app hosts it.
func Module() module.Module {
	return module.Module{
		Name:       "roar",
		Blurb:      "A microblog with a live timeline and a REST API.",
		Migrations: Migrations,
		Static:     StaticFS(),
		New: func(ctx context.Context, c module.Core) (module.App, error) {
			d := Deps{Assets: c.Assets, DB: c.DB, Cache: c.Cache, Local: c.Local, Objects: c.Objects, Site: c.Site, Log: c.Log, Bus: c.Bus, Live: c.Live, Auth: c.Auth, Versions: c.Versions}
			if n := module.SettingsOf(c, "roar", DefaultSettings()).PostsPerMinute; c.Config.RateLimits && n > 0 {
				d.PostLimit = c.Limiter("roar-post", time.Minute/time.Duration(n), 10)
			}
			return New(ctx, d)
		},
		Seed: &module.Seed{
			Help:  "1,000 users (one password), 20,000 roars, likes, follows",
			Flags: seedFlags,
		},
		Scenarios: LoadScenarios,
		Flags:     settingsFlags,
		Roles:     []module.Role{{Name: RoleModerator, Help: "sees the reports, removes anyone's roars, dismisses reports"}},
	}
}

// Settings are roar's own settings (module.Module.Flags).
type Settings struct {
	// PostsPerMinute is the roars a user may post per minute, in bursts
	// of up to 10 (429 + Retry-After past it); 0: no limit. Off with
	// --rate-limits=false too.
	PostsPerMinute int
}

// DefaultSettings are roar's settings when none are given.
func DefaultSettings() Settings { return Settings{PostsPerMinute: 30} }

// Validate checks the settings after parsing (config.Config.Validate).
func (s *Settings) Validate() error {
	if s.PostsPerMinute < 0 {
		return fmt.Errorf("roar-posts-per-minute %d: want 0 or more", s.PostsPerMinute)
	}
	return nil
}

// settingsFlags declares Settings: --roar-posts-per-minute.
func settingsFlags(cs *config.Settings) any {
	s := DefaultSettings()
	cs.Int(&s.PostsPerMinute, "roar-posts-per-minute", "TUTTI_ROAR_POSTS_PER_MINUTE", s.PostsPerMinute,
		"roars a user may post per minute, in bursts of up to 10; 0 means no limit")
	return &s
}

// RoleModerator is roar's one role (module.Module.Roles): its holders see
// the reports, remove anyone's roars and dismiss reports.
const RoleModerator = "moderator"

// isModerator reports whether u (nil: a visitor) moderates roar.
func isModerator(u *auth.User) bool { return u.Has("roar", RoleModerator) }

// LoadDemo implements module.Demoer: a short conversation, once.
func (a *App) LoadDemo(ctx context.Context, log *slog.Logger) error {
	if err := a.Demo(ctx); err != nil {
		return err
	}
	log.Info("roar demo conversation", "url", "/roar/")
	return nil
}

// ForgetAccount implements module.AccountHook: the user's roars, likes,
// follows, ... go in the deleting transaction.
func (a *App) ForgetAccount(ctx context.Context, tx *db.Tx, userID int64) error {
	return a.svc.ForgetAccount(ctx, tx, userID)
}

// AccountForgotten implements module.AccountHook: cached timelines that
// showed the user are out of date.
func (a *App) AccountForgotten(context.Context, int64) { a.svc.AccountForgotten() }

// seedFlags is `tutti seed roar`.
func seedFlags(fs *flag.FlagSet) (func() error, module.SeedFunc) {
	size := SeedDefault
	fs.IntVar(&size.Users, "users", size.Users, "users to create, all with the same password")
	fs.IntVar(&size.Roars, "roars", size.Roars, "roars (a fifth of them replies; some with #hashtags and @mentions)")
	fs.IntVar(&size.Likes, "likes", size.Likes, "likes, mostly on recent roars")
	fs.IntVar(&size.Follows, "follows", size.Follows, "follows between the users")
	password := fs.String("password", SeedPassword, "every seeded user's password")
	check := func() error {
		if size.Users < 2 || size.Roars < 1 || size.Likes < 0 || size.Follows < 0 {
			return errors.New("need at least two users and one roar")
		}
		return nil
	}
	return check, func(ctx context.Context, d *db.DB, run module.SeedRun) (string, error) {
		start := time.Now()
		ids, err := Seed(ctx, d, size, *password, run.Out, run.Progress, run.RNGSeed)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("seeded roar in %.1f s: %d users (password %q), %d roars, up to %d likes and %d follows; ids in %s",
			time.Since(start).Seconds(), len(ids.Users), *password, len(ids.Roars), size.Likes, size.Follows, run.Out), nil
	}
}
