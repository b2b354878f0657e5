// Package module is what an app gives the composition root (internal/app)
// to be hosted: its migrations, a constructor over the core services, and,
// optionally, demo data, a seed command, load scenarios, an account-deletion
// hook and a shutdown. Each app describes itself in its own module.go; the
// one list of apps is internal/app's Modules, so adding an app is one line
// there.
//
// The types live here, apart from internal/app, because the apps import them
// and internal/app imports the apps.
package module

import (
	"context"
	"flag"
	"io"
	"io/fs"
	"log/slog"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/config"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/load"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/room"
	"github.com/tutti-dev/tutti/internal/version"
	"github.com/tutti-dev/tutti/internal/web"
)

// Module describes one app.
type Module struct {
	// Name is the app's name: its path (/NAME/), `tutti seed NAME`, its
	// migrations' version table.
	Name string
	// Blurb is the start page's sentence about the app.
	Blurb string
	// Migrations are the app's embedded SQL, applied after the core's
	// (accounts) and the modules listed before it.
	Migrations db.Migrations
	// New builds the app on the core services.
	New func(ctx context.Context, c Core) (App, error)
	// Seed, if set, is `tutti seed NAME`: bulk data for the load tests.
	Seed *Seed
	// Scenarios, if set, are the app's load scenarios by name (`tutti load`).
	Scenarios func() map[string]load.Factory
	// Static, if set, is the app's static files, served under StaticPrefix
	// with content-hashed names: the core builds them (Assets) and hands
	// them to the app in Core.Assets, and `tutti assets export` writes the
	// same for nginx.
	Static fs.FS
	// Flags, if set, declares the app's own settings on s (s.Int,
	// s.String: a --flag and its TUTTI_* variable, listed by `tutti serve
	// -h`) and returns a pointer to their value, filled in by parsing;
	// the core keeps it in Config.Apps[Name] (read it with SettingsOf) and
	// calls its Validate() error method, if any, with the core's checks.
	Flags func(s *config.Settings) any
	// Commands, if set, are the app's own commands: `tutti NAME ARGS...`
	// (listed by `tutti help`).
	Commands map[string]Command
	// Roles are the roles the app gives some users (roar: "moderator"):
	// granted by `tutti role grant NAME ROLE USER`, stored by the core
	// (auth's user_roles) and carried by the signed-in user: check them
	// with u.Has(NAME, role), or guard a route group with auth.RequireRole.
	Roles []Role
}

// Command is an app's command-line command.
type Command struct {
	Usage string // "tutti NAME ..." arguments, for the usage text
	Help  string // one line: what it does
	// Run runs it with the arguments after its name. settings parses the
	// site's settings (database, data directory, the apps' flags) from
	// args with the command's own flags (declare on fs; fs may be nil)
	// added: use it so that the command reaches the same database as
	// `tutti serve`. out is the command's standard output.
	Run func(ctx context.Context, args []string, settings Parse, out io.Writer) error
}

// Parse parses the site's settings from args, with extra flags declared
// on the flag set first (extra may be nil); it returns the positional
// arguments left.
type Parse func(args []string, extra func(fs *flag.FlagSet)) (config.Config, []string, error)

// SettingsOf is the app's settings that its Flags returned (a *T), kept
// in c.Config.Apps[name]; def when there are none (a Config made in Go).
func SettingsOf[T any](c Core, name string, def T) T {
	if p, ok := c.Config.App(name).(*T); ok && p != nil {
		return *p
	}
	return def
}

// Role is one of an app's roles.
type Role struct {
	Name string // lower-case letters, digits and '-': "moderator"
	Help string // one line for `tutti role list`: what its holders may do
}

// StaticPrefix is where the app's Static files are served: /NAME/static/.
func (m Module) StaticPrefix() string { return "/" + m.Name + "/static/" }

// Assets is the app's Static served under StaticPrefix (nil without Static).
func (m Module) Assets() (*web.Assets, error) {
	if m.Static == nil {
		return nil, nil
	}
	return web.NewAssets(m.Static, m.StaticPrefix())
}

// Link is the app in the navigation and on the start page.
func (m Module) Link() web.AppLink {
	return web.AppLink{Path: "/" + m.Name + "/", Name: m.Name, Blurb: m.Blurb, Ready: true}
}

// Core is the shared services an app is built on.
type Core struct {
	Config config.Config
	Log    *slog.Logger
	DB     *db.DB
	// Cache is the shared cache: in process (embedded mode), or in cluster
	// mode (--redis-url) an in-process tier in front of Redis, kept coherent
	// over the bus, with a Redis lock so that one instance builds a missing
	// entry. Redis failing makes misses, never errors.
	Cache *cache.Cache
	// Local is this process's own in-process cache, for what must cost
	// nanoseconds (rendered fragments); sized by --cache-bytes with Cache.
	// Its entries must be version-keyed: nothing tells other instances.
	Local *cache.Cache
	// Objects is this process's one cache of decoded values (a race, the
	// newest roars), read through typed views (cache.NewDecoded): a hit
	// costs no decoding. Its share of --cache-bytes is cache.SplitBudget's.
	Objects *cache.Objects
	Site    *web.Site
	Bus     *pubsub.Bus
	// Live is every app's live streams (internal/live): limited together,
	// ended when shutdown begins. Pass it to live.New.
	Live  *live.Group
	Auth  *auth.Service
	Files files.Storage
	// Images bounds the memory that decoding uploaded pictures holds at
	// once, for every app of the process (internal/media decodes within it).
	Images *files.ImageBudget
	// Media keeps uploads (internal/media): streamed, checked, the
	// original private, derived sizes made by a job. An app registers its
	// kinds at start.
	Media *media.Service
	// Jobs is the durable background work (rows claimed by workers, on
	// any instance), and the outbox that Mail sends from.
	Jobs *jobs.Queue
	Mail *mail.Mailer
	// Pay is the payment gateway (internal/pay): the built-in test gateway
	// by default, Stripe when configured.
	Pay pay.Gateway
	// Versions is "what changed last" (internal/version), shared by the apps:
	// in memory (SQLite), read from the database (PostgreSQL), or kept in
	// Redis (cluster mode), so that every instance sees a change at once.
	Versions version.Versions
	// Rooms makes a waiting room (internal/room) that lets up to rate
	// people in a second, in bursts of as many, fewer when the site's
	// measured health says so (internal/pace): who is let in when a crowd
	// arrives at once; its line shared by every instance in cluster mode.
	Rooms func(ctx context.Context, rate int) (*room.Rooms, error)
	// Limiter makes the rate limiters (internal/ratelimit): in process, or
	// shared by every instance through Redis in cluster mode.
	Limiter ratelimit.Maker
	// Assets is the app's own static files (its Module's Assets), to serve
	// at Assets.Prefix() and link by Assets.URL; nil without Static.
	Assets *web.Assets
	// Listening is the address the process's listener has once it
	// listens ("host:port", the port chosen if the configuration said
	// :0); "" before.
	Listening func() string
}

// App is a built app: it mounts its routes on rt, a router scoped to its
// path (/NAME): rt.Get("/home", h) is GET /NAME/home; rt.Group(mw...)
// and rt.Route(path, mw...) make groups whose handlers run behind mw
// (auth.SignedIn, auth.RequireRole, the app's own).
type App interface {
	Routes(rt *web.Router)
}

// The optional parts of an App, found by type assertion.
type (
	// Demoer loads the app's demo data (`tutti serve --demo`). It must be
	// idempotent: a second start on the same data adds nothing.
	Demoer interface {
		LoadDemo(ctx context.Context, log *slog.Logger) error
	}
	// AccountHook is told of an account's deletion: Forget runs inside the
	// deleting transaction, Forgotten after its commit.
	AccountHook interface {
		ForgetAccount(ctx context.Context, tx *db.Tx, userID int64) error
		AccountForgotten(ctx context.Context, userID int64)
	}
	// Shutdowner ends what keeps requests open (live streams), so that the
	// HTTP server can stop; it is called when shutdown begins.
	Shutdowner interface {
		Shutdown()
	}
	// Closer releases the app after the HTTP server stopped, before the
	// database closes (commit queued writes, leave the bus).
	Closer interface {
		Close()
	}
)

// Seed is an app's `tutti seed NAME` command.
type Seed struct {
	// Help is one line for the usage text: what a default seed loads.
	Help string
	// Flags declares the seed's own flags on fs and returns, for after
	// parsing, check (the flags' values make sense; called before the
	// database is touched) and run (loads the data). The core declares
	// --out, --seed and the database settings.
	Flags func(fs *flag.FlagSet) (check func() error, run SeedFunc)
}

// SeedFunc loads seed data into d and writes the ids the load test needs to
// run.Out; it returns a one-line summary for the terminal.
type SeedFunc func(ctx context.Context, d *db.DB, run SeedRun) (summary string, err error)

// SeedRun is what the core hands a seed.
type SeedRun struct {
	Out      string    // where to write the ids (default DATA-DIR/seed/NAME.json)
	RNGSeed  uint64    // random seed
	Progress io.Writer // a progress bar's terminal; nil: none
	// Files is the site's upload storage (the data directory's uploads/,
	// or S3 with --storage-url), for a seed that stores files (music's
	// audio posts).
	Files files.Storage
}
