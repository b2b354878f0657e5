package roar

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/version"
	"github.com/tutti-dev/tutti/internal/web"
)

//go:embed migrations
var migrations embed.FS

// Migrations are roar's tables (after auth's users).
var Migrations = db.Migrations{App: "roar", FS: subFS(migrations, "migrations")}

//go:embed static
var static embed.FS

// Limiter answers whether key may act now, and if not, when.
type Limiter interface {
	Allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration)
}

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
	Now       func() time.Time // nil: time.Now
	Versions  version.Versions // the core's versions service; nil: one of roar's own
}

// App is the roar application.
type App struct {
	Deps
	store  *Store
	assets *web.Assets
	writes *db.Batcher
	hub    *live.Hub[Event]

	// versions keys the caches: roar's stamp is roar_meta.version
	// (internal/version: in memory with SQLite, read from the database and
	// kept fresh by the bus with PostgreSQL).
	versions version.Versions
	decoded  memo         // things read from the shared cache, decoded, at their version
	frags    *cache.Cache // rendered roar articles (fragment.go)
	pages    *cache.Pages // visitors' pages, decoded (serveCached)
}

// New builds the app, subscribes to the live events and starts the writer.
func New(ctx context.Context, d Deps) (*App, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	assets, err := web.NewAssets(subFS(static, "static"), "/roar/static/")
	if err != nil {
		return nil, err
	}
	a := &App{Deps: d, store: &Store{db: d.DB, now: d.Now}, assets: assets}
	if a.versions = d.Versions; a.versions == nil {
		a.versions = version.For(d.DB)
	}
	a.versions.Register(versionScope, func(ctx context.Context, _ string) (version.Stamp, error) {
		v, err := a.store.Version(ctx)
		return version.Stamp{V: v}, err
	})
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
		Heard: func(*Event) { a.versions.Heard(versionScope, "") },
	}); err != nil {
		return nil, err
	}
	a.writes = d.DB.Batch() // the core's, shared with every app
	return a, nil
}

// Store gives tools (seed, demo, tests) the app's store.
func (a *App) Store() *Store { return a.store }

// Shutdown ends the live streams (so that the HTTP server can stop); Deps.Live
// does it for every app at once.
func (a *App) Shutdown() { a.hub.Shutdown() }

// Close stops listening to the bus; call it after the HTTP server stopped.
// The writes still queued are the core's to commit (db.CloseBatch).
func (a *App) Close() {
	a.hub.Close()
}

// WriteStats reports the group commit: transactions and the writes in them.
func (a *App) WriteStats() (batches, writes int64) { return a.writes.Stats() }

// write runs fn in a group-committed transaction and raises the version.
func (a *App) write(ctx context.Context, fn func(ctx context.Context, tx *db.Tx) error) error {
	err := a.writes.Do(ctx, fn)
	if err == nil {
		a.changed()
	}
	return err
}

// versionScope is roar's scope in the versions service: one stamp (id "")
// for all of roar.
const versionScope = "roar"

// changed records a committed change made here.
func (a *App) changed() { a.versions.Bump(versionScope, "") }

// currentVersion is the version that keys the caches, as committed: signed-in
// users see their own writes even when made through another instance.
func (a *App) currentVersion(ctx context.Context) (int64, error) {
	st, err := a.versions.Fresh(ctx, versionScope, "")
	return st.V, err
}

// visitorVersion is the version of the visitors' cached pages. Visitors never
// write, so nobody misses their own roar: on PostgreSQL the version read is
// trusted until a change is heard of (here or on the bus), a second at most
// (version.Database); another instance's roar reaches them as fast as the
// bus.
func (a *App) visitorVersion(ctx context.Context) (int64, error) {
	st, err := a.versions.Get(ctx, versionScope, "")
	return st.V, err
}

// versionTTL is how long something cached at a version is kept. Every write
// makes a new version, so under a write load old versions are garbage at
// once: a short life keeps them from filling the cache (and the heap the
// collector must scan), while a quiet timeline is rebuilt at most this often.
const versionTTL = 30 * time.Second

// cacheKey names a cached thing at version v.
func cacheKey(v int64, name string) string {
	return "roar:" + strconv.FormatInt(v, 10) + ":" + name
}

// memo keeps, by name, what this process decoded from the shared cache at
// the version it was read, so that a hit at the current version costs one
// map load: no cache lookup, no decoding, no key to build. The names are a
// few constants (the newest roars, the visitors' pages), never per user.
type memo struct{ m sync.Map }

type memoEntry struct {
	version int64
	val     any
}

func (m *memo) get(name string, v int64) (any, bool) {
	if e, ok := m.m.Load(name); ok && e.(*memoEntry).version == v {
		return e.(*memoEntry).val, true
	}
	return nil, false
}

func (m *memo) put(name string, v int64, val any) { m.m.Store(name, &memoEntry{v, val}) }

func subFS(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err) // embedded at build time
	}
	return sub
}

// Streams is the number of live streams open on this instance.
func (a *App) Streams() int { return a.hub.Streams() }
