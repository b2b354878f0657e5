package race

import (
	"context"
	"time"

	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/module"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/room"
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
		Flags: settingsFlags,
		New: func(ctx context.Context, c module.Core) (module.App, error) {
			var rooms *room.Rooms
			if rate := module.SettingsOf(c, "race", DefaultSettings()).RoomRate; rate > 0 && c.Rooms != nil {
				var err error
				if rooms, err = c.Rooms(ctx, rate); err != nil {
					return nil, err
				}
			}
			return New(Deps{DB: c.DB, Cache: c.Cache, Objects: c.Objects, Site: c.Site, Log: c.Log, Bus: c.Bus, Auth: c.Auth, Pay: c.Pay,
				Mail: c.Mail, Jobs: c.Jobs, Versions: c.Versions, Assets: c.Assets, Rooms: rooms,
				Files: c.Files, Images: c.Images, Media: c.Media, Listening: c.Listening, JoinLimit: joinLimit(c)})
		},
	}
}

// Settings are race's own settings (module.Module.Flags).
type Settings struct {
	// RoomRate is the most people a race's waiting room lets in per
	// second, all instances together, in bursts of as many: a ceiling, as
	// the room admits fewer when the site serves those it let in slower
	// than its target (internal/pace); 0 (or less): no waiting room.
	RoomRate int
}

// DefaultRoomRate is --room-rate's default: a little under the
// registrations a second one core completes (docs/results.md, race); a
// ceiling, which a busier or slower machine does not reach.
const DefaultRoomRate = 400

// DefaultSettings are race's settings when none are given.
func DefaultSettings() Settings { return Settings{RoomRate: DefaultRoomRate} }

// settingsFlags declares Settings: --room-rate.
func settingsFlags(cs *config.Settings) any {
	s := DefaultSettings()
	cs.Int(&s.RoomRate, "room-rate", "TUTTI_ROOM_RATE", s.RoomRate,
		"the most people a waiting room (race registration) lets in per second, in bursts of as many: a ceiling, as the room lets fewer in while the site answers slower than its target (p90 250 ms); the rest wait their turn on a light page; 0 means no waiting room")
	return &s
}

// joinLimit is a runner's joins of a race's waiting room: three at once
// (a second browser, a cleared cookie), then one each 20 s.
func joinLimit(c module.Core) ratelimit.Limiter {
	if !c.Config.RateLimits {
		return nil
	}
	return c.Limiter("race-room-join", 20*time.Second, 3)
}
