package race

import (
	"context"

	"github.com/tutti-dev/tutti/internal/module"
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
			return New(Deps{DB: c.DB, Cache: c.Cache, Site: c.Site, Log: c.Log, Bus: c.Bus, Auth: c.Auth, Pay: c.Pay,
				Mail: c.Mail, Jobs: c.Jobs, Versions: c.Versions, Assets: c.Assets, BaseURL: c.Config.BaseURL, Rooms: c.Rooms,
				Files: c.Files, Images: c.Images, Listening: c.Listening})
		},
	}
}
