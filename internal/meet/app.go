package meet

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"errors"
	"io/fs"
	"log/slog"
	"time"

	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/version"
	"github.com/tutti-dev/tutti/internal/web"
)

//go:embed migrations
var migrations embed.FS

// Migrations are meet's tables.
var Migrations = db.EmbeddedMigrations("meet", migrations)

//go:embed static
var static embed.FS

// StaticFS is the app's static files (module.Module's Static), served under
// /NAME/static/ with content-hashed names (the core builds them: Assets).
func StaticFS() fs.FS { return web.EmbeddedStatic(static) }

// Deps are the core services meet uses.
type Deps struct {
	DB      *db.DB
	Cache   *cache.Cache
	Site    *web.Site
	Log     *slog.Logger
	Bus     *pubsub.Bus      // carries the live events between instances; nil: this one only
	Live    *live.Group      // ends the live streams at shutdown
	BaseURL string           // public URL for calendar links; empty: from the request
	Now     func() time.Time // nil: time.Now
	// Versions is the core's versions service; nil: one of meet's own.
	Versions version.Versions
	// Assets is meet's static files, built by the core (module.Module.Assets).
	Assets *web.Assets
}

// App is the meet application.
type App struct {
	Deps
	store    *Store
	svc      *Service // every decision: handlers call it, it calls store
	assets   *web.Assets
	versions version.Versions
	hub      *live.Hub[pollEvent] // the poll pages' live streams
	pages    *cache.Pages         // the poll pages, decoded
}

// New builds the app.
func New(d Deps) (*App, error) {
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
	a.versions.Register(versionScope, func(ctx context.Context, id string) (version.Stamp, error) {
		v, dl, err := a.store.Version(ctx, id)
		return stampOf(v, dl), err
	})
	a.pages = cache.NewPages(d.Cache, "meet:page", time.Hour, 0)
	a.svc = NewService(a.store, d.Now, a.committed, func(id string) { a.forget(id); a.publish(id, "poll") })
	if a.hub, err = newHub(d, a.versions); err != nil {
		return nil, err
	}
	return a, nil
}

// Close ends the live streams and stops listening to the bus.
func (a *App) Close() { a.hub.Close() }

// Store gives tools (seed, demo, tests) the app's store.
func (a *App) Store() *Store { return a.store }

// versionScope is meet's scope in the versions service: a poll's stamp is
// its version column and its deadline (the page changes then without a
// write).
const versionScope = "meet"

// stamp returns the cache stamp of poll id: its version, and whether its
// deadline has passed. It costs a map load (SQLite) or at most one
// primary-key lookup a second (PostgreSQL, see version.Database).
func (a *App) stamp(ctx context.Context, id string) (v int64, locked bool, err error) {
	st, err := a.versions.Get(ctx, versionScope, id)
	return st.V, st.Past(a.Now()), err
}

// raise records that poll id is now at least at version v, with deadline.
func (a *App) raise(id string, v int64, deadline *time.Time) {
	a.versions.Raise(versionScope, id, stampOf(v, deadline))
}

func stampOf(v int64, deadline *time.Time) version.Stamp {
	st := version.Stamp{V: v}
	if deadline != nil {
		st.Until = deadline.Unix()
	}
	return st
}

// forget drops a deleted poll's stamp.
func (a *App) forget(id string) {
	a.versions.Forget(versionScope, id)
	a.pages.Forget(id)
}

// token returns n random bytes, URL-safe.
func token(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// sameSecret compares secrets in constant time.
func sameSecret(a, b string) bool {
	return len(a) > 0 && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
