package roar

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/tags"
	"github.com/tutti-dev/tutti/internal/version"
	"github.com/tutti-dev/tutti/internal/web"
)

//go:embed migrations
var migrations embed.FS

// Migrations are roar's tables (after auth's users).
var Migrations = db.EmbeddedMigrations("roar", migrations)

//go:embed static
var static embed.FS

// StaticFS is the app's static files (module.Module's Static), served under
// /NAME/static/ with content-hashed names (the core builds them: Assets).
func StaticFS() fs.FS { return web.EmbeddedStatic(static) }

// Deps are the core services roar uses.
type Deps struct {
	DB        *db.DB
	Cache     *cache.Cache
	Site      *web.Site
	Log       *slog.Logger
	Bus       *pubsub.Bus
	Live      *live.Group // ends the live streams at shutdown; nil: Shutdown does
	Auth      *auth.Service
	PostLimit Limiter          // roars, replies and reposts per user; nil: unlimited
	Local     *cache.Cache     // this process's own cache, for rendered articles; nil: Cache
	Objects   *cache.Objects   // this process's cache of decoded values (the newest roars); nil: one of roar's own
	Now       func() time.Time // nil: time.Now
	Versions  version.Versions // the core's versions service; nil: one of roar's own
	Assets    *web.Assets      // its static files, built by the core (module.Module.Assets)
}

// App is the roar application: the wiring and the HTTP handlers (pages and
// the JSON API), over the Service, which decides.
type App struct {
	Deps
	svc    *Service // every decision and write: handlers call it, it calls store
	store  *Store
	assets *web.Assets
	hub    *live.Hub[Event]

	// versions keys the caches: roar's stamp is roar_meta.version
	// (internal/version: in memory with SQLite, read from the database and
	// kept fresh by the bus with PostgreSQL). The Service raises it.
	versions version.Versions
	frags    *cache.Cache // rendered roar articles (fragment.go)
	pages    *cache.Pages // visitors' pages, decoded (serveCached)
	board    *tags.Board  // the trending hashtags, kept fresh in memory
}

// trendingShown is how many trending hashtags the timelines show, and
// trendingEvery how often the board reads them again (a roar posted here
// shows within a second; one posted on another instance within this).
const (
	trendingShown = 8
	trendingEvery = 10 * time.Second
)

// New builds the app, subscribes to the live events and starts the writer.
func New(ctx context.Context, d Deps) (*App, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	var err error
	if d.Assets == nil {
		return nil, errors.New("assets: the core builds them (module.Module.Assets)")
	}
	a := &App{Deps: d, store: NewStore(d.DB, d.Now), assets: d.Assets}
	if a.versions = d.Versions; a.versions == nil {
		a.versions = version.For(d.DB)
	}
	// The writes go through the core's group commit, shared with every app.
	a.svc = NewService(a.store, d.DB.Batch(), a.versions, d.Cache, d.PostLimit, d.Log, a.announce)
	if d.Objects != nil {
		a.svc.decoded = newDecoded(d.Objects)
	}
	if _, err := a.versions.Get(ctx, versionScope, ""); err != nil {
		return nil, err
	}
	a.pages = cache.NewPages(d.Cache, "roar:page", versionTTL, 0)
	a.frags = d.Local
	if a.frags == nil {
		a.frags = d.Cache
	}
	if a.hub, err = live.New(d.Live, live.Options[Event]{
		Bus: d.Bus, Subject: subject, Encode: message,
		// Some instance changed roar: visitors' version is old.
		Noticed: func() { a.versions.Heard(versionScope, "") },
	}); err != nil {
		return nil, err
	}
	if a.board, err = tags.NewBoard(ctx, a.store.Trending(), d.DB, trendingShown, trendingEvery, d.Log); err != nil {
		a.hub.Close()
		return nil, err
	}
	a.svc.board = a.board
	return a, nil
}

// Service is the app's service layer, for tools and tests that act without
// HTTP.
func (a *App) Service() *Service { return a.svc }

// Store gives tools (seed, demo, tests) the app's store.
func (a *App) Store() *Store { return a.store }

// Shutdown ends the live streams (so that the HTTP server can stop); Deps.Live
// does it for every app at once.
func (a *App) Shutdown() { a.hub.Shutdown() }

// Close stops listening to the bus; call it after the HTTP server stopped.
// The writes still queued are the core's to commit (db.CloseBatch).
func (a *App) Close() {
	a.hub.Close()
	a.board.Close()
}

// WriteStats reports the group commit: transactions and the writes in them.
func (a *App) WriteStats() (batches, writes int64) { return a.svc.WriteStats() }

// visitorVersion is the version of the visitors' cached pages. Visitors never
// write, so nobody misses their own roar: on PostgreSQL the version read is
// trusted until a change is heard of (here or on the bus), a second at most
// (version.Database); another instance's roar reaches them as fast as the
// bus.
func (a *App) visitorVersion(ctx context.Context) (int64, error) {
	st, err := a.versions.Get(ctx, versionScope, "")
	return st.V, err
}

// Streams is the number of live streams open on this instance.
func (a *App) Streams() int { return a.hub.Streams() }
