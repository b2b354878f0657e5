package meet

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/web"
)

//go:embed migrations
var migrations embed.FS

// Migrations are meet's tables.
var Migrations = db.Migrations{App: "meet", FS: subFS(migrations, "migrations")}

//go:embed static
var static embed.FS

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
}

// App is the meet application.
type App struct {
	Deps
	store    *Store
	svc      *Service // every decision: handlers call it, it calls store
	assets   *web.Assets
	versions versions
	hub      *live.Hub[pollEvent] // the poll pages' live streams
}

// New builds the app.
func New(d Deps) (*App, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	assets, err := web.NewAssets(subFS(static, "static"), "/meet/static/")
	if err != nil {
		return nil, err
	}
	a := &App{Deps: d, store: &Store{db: d.DB, now: d.Now}, assets: assets}
	a.versions.local = d.DB.Dialect == db.SQLite
	a.svc = NewService(a.store, d.Now, a.committed, func(id string) { a.forget(id); a.publish(id, "poll") })
	if a.hub, err = newHub(d); err != nil {
		return nil, err
	}
	return a, nil
}

// Close ends the live streams and stops listening to the bus.
func (a *App) Close() { a.hub.Close() }

// Store gives tools (seed, demo, tests) the app's store.
func (a *App) Store() *Store { return a.store }

// versions knows each poll's current version and deadline, the key of its
// caches. With SQLite one process owns the database, so they are kept in
// memory (the version raised after every commit, never lowered: a reader that
// loaded an older version cannot undo a writer's raise). With PostgreSQL
// several instances may write, so they are read from the database, one
// primary-key lookup per request.
type versions struct {
	local bool
	m     sync.Map // poll id -> *stamp
}

type stamp struct {
	version  atomic.Int64
	deadline atomic.Int64 // unix seconds, 0: none
}

// stamp returns the cache stamp of poll id: its version, plus "L" once its
// deadline has passed (the page changes then without a write).
func (a *App) stamp(ctx context.Context, id string) (string, error) {
	var v, deadline int64
	if e, ok := a.versions.m.Load(id); ok && a.versions.local {
		st := e.(*stamp)
		v, deadline = st.version.Load(), st.deadline.Load()
	} else {
		var dl *time.Time
		var err error
		if v, dl, err = a.store.Version(ctx, id); err != nil {
			return "", err
		}
		if dl != nil {
			deadline = dl.Unix()
		}
		a.raise(id, v, dl)
	}
	s := strconv.FormatInt(v, 10)
	if deadline != 0 && a.Now().Unix() >= deadline {
		s += "L"
	}
	return s, nil
}

// raise records that poll id is now at least at version v, with deadline.
func (a *App) raise(id string, v int64, deadline *time.Time) {
	if !a.versions.local {
		return
	}
	e, _ := a.versions.m.LoadOrStore(id, new(stamp))
	st := e.(*stamp)
	for {
		cur := st.version.Load()
		if cur > v {
			return
		}
		if st.version.CompareAndSwap(cur, v) {
			break
		}
	}
	if deadline != nil {
		st.deadline.Store(deadline.Unix())
	} else {
		st.deadline.Store(0)
	}
}

// forget drops a deleted poll's stamp.
func (a *App) forget(id string) { a.versions.m.Delete(id) }

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
