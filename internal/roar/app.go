package roar

import (
	"context"
	"embed"
	"io/fs"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/pubsub"
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
}

// App is the roar application.
type App struct {
	Deps
	store  *Store
	assets *web.Assets
	writes *db.Batcher
	hub    *live.Hub[Event]

	// local: this process owns the database (SQLite), so the version that
	// keys the caches is kept in memory, raised after every write's commit.
	// Otherwise it is read from roar_meta per request (for visitors, see
	// visitorVersion).
	local   bool
	version atomic.Int64
	// On PostgreSQL: changes counts the changes heard of (here or on the
	// bus), visitorSeen the version last read for visitors (visitorVersion).
	changes     atomic.Uint64
	visitorSeen atomic.Pointer[seen]
	decoded     memo         // things read from the shared cache, decoded, at their version
	frags       *cache.Cache // rendered roar articles (fragment.go)
	pages       *cache.Pages // visitors' pages, decoded (serveCached)
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
	a := &App{Deps: d, store: &Store{db: d.DB, now: d.Now}, assets: assets, local: d.DB.Dialect == db.SQLite}
	v, err := a.store.Version(ctx)
	if err != nil {
		return nil, err
	}
	a.version.Store(v)
	a.pages = cache.NewPages(d.Cache, "roar:page", versionTTL, 0)
	a.frags = d.Local
	if a.frags == nil {
		a.frags = d.Cache
	}
	if a.hub, err = live.New(d.Live, live.Options[Event]{
		Bus: d.Bus, Subject: subject, Encode: message,
		// Some instance changed roar: visitors' version is old.
		Heard: func(*Event) { a.changes.Add(1) },
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

// changed records a committed change made here.
func (a *App) changed() {
	a.version.Add(1)
	a.changes.Add(1)
}

// currentVersion is the version that keys the caches.
func (a *App) currentVersion(ctx context.Context) (int64, error) {
	if a.local {
		return a.version.Load(), nil
	}
	return a.store.Version(ctx)
}

// visitorMaxAge is how long visitors may be shown a version read from the
// database when no change has been heard of.
const visitorMaxAge = time.Second

// visitorVersion is the version of the visitors' cached pages. With SQLite
// it is the process's own. On PostgreSQL, reading roar_meta for each would
// make every cached hit a query; so the version read is kept until a change
// is heard of (a write here, or any live event from any instance on the bus)
// and a second at most, in case a bus message was lost. Visitors never
// write, so nobody misses their own roar; another instance's roar reaches
// them as fast as the bus, or within the second. Signed-in users read the
// version from the database every time (currentVersion).
func (a *App) visitorVersion(ctx context.Context) (int64, error) {
	if a.local {
		return a.version.Load(), nil
	}
	changes := a.changes.Load()
	if s := a.visitorSeen.Load(); s != nil && s.changes == changes && time.Since(s.at) < visitorMaxAge {
		return s.version, nil
	}
	// Stamped with the time and the changes counted before the read: a change
	// that commits meanwhile makes this stale at once, and it is never
	// trusted for more than visitorMaxAge after the read began.
	at := time.Now()
	v, err := a.store.Version(ctx)
	if err != nil {
		return 0, err
	}
	a.visitorSeen.Store(&seen{version: v, at: at, changes: changes})
	return v, nil
}

type seen struct {
	version int64
	at      time.Time
	changes uint64
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
