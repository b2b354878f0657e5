package race

import (
	"context"
	"time"

	"github.com/tutti-dev/tutti/internal/module"
	"github.com/tutti-dev/tutti/internal/ratelimit"
)

// Module is race as internal/app hosts it.
func Module() module.Module {
	return module.Module{
		Name:       "race",
		Blurb:      "Race registration that takes the opening rush without losing a runner or selling a place twice.",
		Migrations: Migrations,
		Static:     StaticFS(),
		Scenarios:  LoadScenarios,
		Seed: &module.Seed{
			Help:  "a race open now with 1,000 signed-in runners for 1,000 places, and 10,000 results",
			Flags: seedFlags,
		},
		New: func(_ context.Context, c module.Core) (module.App, error) {
			return New(Deps{DB: c.DB, Cache: c.Cache, Objects: c.Objects, Site: c.Site, Log: c.Log, Bus: c.Bus, Auth: c.Auth, Pay: c.Pay,
				Mail: c.Mail, Jobs: c.Jobs, Versions: c.Versions, Assets: c.Assets, Rooms: c.Rooms,
				Files: c.Files, Images: c.Images, Media: c.Media, Listening: c.Listening, JoinLimit: joinLimit(c)})
		},
	}
}

// joinLimit is a runner's joins of a race's waiting room: three at once
// (a second browser, a cleared cookie), then one each 20 s.
func joinLimit(c module.Core) ratelimit.Limiter {
	if !c.Config.RateLimits {
		return nil
	}
	return c.Limiter("race-room-join", 20*time.Second, 3)
}
