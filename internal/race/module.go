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
		New: func(_ context.Context, c module.Core) (module.App, error) {
			return New(Deps{DB: c.DB, Cache: c.Cache, Site: c.Site, Log: c.Log, Bus: c.Bus, Auth: c.Auth, Pay: c.Pay,
				Mail: c.Mail, Jobs: c.Jobs, Versions: c.Versions, Assets: c.Assets, BaseURL: c.Config.BaseURL})
		},
	}
}
