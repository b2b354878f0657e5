package music

import (
	"context"
	"embed"
	"errors"
	"io/fs"
	"log/slog"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/live"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/tags"
	"github.com/tutti-dev/tutti/internal/version"
	"github.com/tutti-dev/tutti/internal/web"
)

//go:embed migrations
var migrations embed.FS

// Migrations are music's tables (after auth's users).
var Migrations = db.EmbeddedMigrations("music", migrations)

//go:embed static
var static embed.FS

// StaticFS is music's static files (module.Module's Static).
func StaticFS() fs.FS { return web.EmbeddedStatic(static) }

// Deps are the core services music uses.
type Deps struct {
	DB       *db.DB
	Cache    *cache.Cache // the shared cache: visitors' pages
	Local    *cache.Cache // this process's cache, for rendered cards; nil: Cache
	Site     *web.Site
	Log      *slog.Logger
	Bus      *pubsub.Bus
	Live     *live.Group
	Auth     *auth.Service
	Versions version.Versions // nil: one of music's own
	Assets   *web.Assets
	Media    *media.Service   // audio posts' files (nil: no uploads)
	Limits   Limits           // the pace of each user's writes (zero: none)
	Now      func() time.Time // nil: time.Now
}

// App is the music application: the wiring and the HTTP handlers, over
// the Service, which decides.
type App struct {
	Deps
	svc      *Service
	store    *Store
	versions version.Versions
	frags    *cache.Cache // rendered post cards (fragment.go)
	pages    *cache.Pages // visitors' pages (pages.go)
	board    *tags.Board  // "What's hot": the trending hashtags of public posts
	hub      *live.Hub[Event]
}

// The trending board: how many tags the cloud shows, how often it is read.
const (
	hotShown = 30
	hotEvery = 10 * time.Second
	pageTTL  = time.Hour
)

// New builds the app.
func New(ctx context.Context, d Deps) (*App, error) {
	if d.Assets == nil {
		return nil, errors.New("assets: the core builds them (module.Module.Assets)")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	a := &App{Deps: d, store: NewStore(d.DB, d.Now)}
	if a.versions = d.Versions; a.versions == nil {
		a.versions = version.For(d.DB)
	}
	a.svc = NewService(a.store, d.DB.Batch(), a.versions, d.Log)
	a.svc.UseMedia(d.Media)
	a.svc.UseLimits(d.Limits)
	a.svc.people = d.Auth
	if _, err := a.versions.Get(ctx, versionScope, ""); err != nil {
		return nil, err
	}
	a.frags = d.Local
	if a.frags == nil {
		a.frags = d.Cache
	}
	a.pages = cache.NewPages(d.Cache, "music:page", pageTTL, 0)
	var err error
	opts := live.Options[Event]{Subject: "music.events", Encode: message,
		Key: func(e *Event) string { return strconv.FormatInt(e.User, 10) }}
	if d.Bus != nil {
		opts.Bus = d.Bus
	}
	if a.hub, err = live.New(d.Live, opts); err != nil {
		return nil, err
	}
	a.svc.unread = func(ctx context.Context, user, n int64) {
		if err := a.hub.Publish(&Event{Type: "notify", User: user, Unread: n}); err != nil {
			a.Log.Warn("music: publish", "err", err)
		}
	}
	if a.board, err = tags.NewBoard(ctx, a.store.Trending(), d.DB, hotShown, hotEvery, d.Log); err != nil {
		a.hub.Close()
		return nil, err
	}
	a.svc.board = a.board
	return a, nil
}

// Service is the app's service layer, for tools and tests.
func (a *App) Service() *Service { return a.svc }

// Store is the app's store, for tools and tests.
func (a *App) Store() *Store { return a.store }

// Shutdown ends the live streams.
func (a *App) Shutdown() { a.hub.Shutdown() }

// Close leaves the bus and stops the board.
func (a *App) Close() {
	a.hub.Close()
	a.board.Close()
}

// Event is a live change for one user's streams: their unread count.
type Event struct {
	Type   string `json:"type"` // notify
	User   int64  `json:"user"`
	Unread int64  `json:"unread"`
}

func message(e *Event) live.Message {
	return live.Message{Type: e.Type, Data: [][]byte{live.JSON(e)}}
}

// Streams is the number of live streams open on this instance.
func (a *App) Streams() int { return a.hub.Streams() }
