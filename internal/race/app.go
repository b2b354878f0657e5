package race

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/pubsub"
	"github.com/tutti-dev/tutti/internal/race/rehearsals"
	"github.com/tutti-dev/tutti/internal/race/results"
	"github.com/tutti-dev/tutti/internal/race/waitlist"
	"github.com/tutti-dev/tutti/internal/ratelimit"
	"github.com/tutti-dev/tutti/internal/room"
	"github.com/tutti-dev/tutti/internal/version"
	"github.com/tutti-dev/tutti/internal/walltime"
	"github.com/tutti-dev/tutti/internal/web"
)

//go:embed migrations
var migrations embed.FS

// Migrations are race's tables (after auth's users).
var Migrations = db.EmbeddedMigrations("race", migrations)

//go:embed static
var static embed.FS

// StaticFS is the app's static files, served under /race/static/ with
// content-hashed names.
func StaticFS() fs.FS { return web.EmbeddedStatic(static) }

// Deps are the core services race uses.
type Deps struct {
	DB    *db.DB
	Cache *cache.Cache
	// Objects is the process's cache of decoded values (runners' races);
	// nil: one of the app's own.
	Objects  *cache.Objects
	Site     *web.Site
	Log      *slog.Logger
	Bus      *pubsub.Bus // tells other instances' waiting pages of written registrations; nil: none
	Auth     *auth.Service
	Pay      pay.Gateway
	Mail     *mail.Mailer // confirmation mail through the outbox; nil: none sent
	Jobs     *jobs.Queue  // refunds; nil: cancelling a paid registration is refused
	Versions version.Versions
	Assets   *web.Assets      // its static files, built by the core (module.Module.Assets)
	Now      func() time.Time // nil: time.Now
	// Rooms is the waiting room in front of the wizard; nil: none.
	Rooms *room.Rooms
	// JoinLimit bounds how often a runner joins a race's waiting room
	// afresh (keyed by race and user; nil: unlimited). Each join takes the
	// next turn, behind everyone's, so joins repeated without the room's
	// cookie would push every runner after them back.
	JoinLimit ratelimit.Limiter
	// HoldFor is how long a place is held for a runner in the wizard
	// (0: DefaultHoldFor).
	HoldFor time.Duration
	// InviteFor is how long a waiting list's invitation keeps its place
	// (0: waitlist.DefaultInviteFor).
	InviteFor time.Duration
	// Files stores the races' logos (nil: no uploads); Images bounds the
	// memory their decoding holds (nil: a budget of the app's own).
	Files  files.Storage
	Images *files.ImageBudget
	// Media keeps the logos' uploads and makes their sizes (nil: none can
	// be uploaded).
	Media *media.Service
	// Listening is the instance's listen address once it listens: a load
	// rehearsal's runners reach it over loopback (package rehearsals); nil, ""
	// or not on loopback: none can run here.
	Listening func() string
}

// DefaultHoldFor is how long a place is held: ten wizard pages at the
// seed's slowest minute each, and as much again.
const DefaultHoldFor = 20 * time.Minute

// App is the race application.
type App struct {
	Deps
	store    *Store
	svc      *Service
	assets   *web.Assets
	versions version.Versions
	pages    *cache.Pages // race pages, decoded
	results  *results.App // the results' pages (package results)
	// waitlist is the events' waiting lists and lotteries (package waitlist).
	waitlist *waitlist.App
	// rehearsals is the directors' load rehearsal console (package
	// rehearsals).
	rehearsals *rehearsals.App
}

// versionScope is race's scope in the versions service: a race's stamp is
// its version column, keyed by slug.
const versionScope = "race"

// New builds the app and starts its registration writer.
func New(d Deps) (*App, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.HoldFor <= 0 {
		d.HoldFor = DefaultHoldFor
	}
	if d.Images == nil {
		d.Images = files.NewImageBudget(files.DefaultImageBudget)
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Assets == nil {
		return nil, errors.New("assets: the core builds them (module.Module.Assets)")
	}
	if d.Pay == nil {
		d.Pay = &pay.Test{DB: d.DB}
	}
	a := &App{Deps: d, store: NewStore(d.DB), assets: d.Assets}
	if a.versions = d.Versions; a.versions == nil {
		a.versions = version.For(d.DB)
	}
	a.versions.Register(versionScope, func(ctx context.Context, slug string) (version.Stamp, error) {
		v, err := a.store.Version(ctx, slug)
		return version.Stamp{V: v}, err
	})
	a.pages = cache.NewPages(d.Cache, "race:page", 10*time.Second, 0)
	a.svc = &Service{store: a.store, db: d.DB, batch: d.DB.Batch(), pay: d.Pay, jobs: d.Jobs, users: d.Auth.ByUsername, usersGone: d.Auth.Forget, now: d.Now,
		holdFor: d.HoldFor, log: d.Log, changed: a.changed, versions: a.versions, races: newRaceCache(d.Objects)}
	a.svc.mail = d.Mail
	a.svc.files, a.svc.images = d.Files, d.Images
	if d.Media != nil && d.Files != nil {
		a.svc.media = d.Media
		d.Media.Register(a.svc.logoKind(d.Images))
	}
	if d.DB.Dialect == db.SQLite { // embedded mode: this process writes every hold
		a.store.keepHolds()
		d.DB.OnOthers(a.store.forgetHolds)
	}
	var mailed func([]Registration)
	if d.Mail != nil {
		mailed = func([]Registration) { d.Mail.Notify() }
	}
	a.svc.writer = newWriter(a.svc, d.Bus, d.Log, a.confirmations, mailed)
	if d.Jobs != nil {
		d.Jobs.Handle(refundKind, a.svc.refund)
		if d.Mail != nil {
			d.Jobs.Handle(messageKind, a.svc.mailMessage)
		}
	}
	a.results = results.New(results.Deps{DB: d.DB, Cache: d.Cache, Site: d.Site, Versions: a.versions, Chrome: chrome{a}, Now: d.Now,
		Races: results.Races{Published: a.publishedRace, Directed: a.directedRace, Edit: a.editRace}})
	a.waitlist = waitlist.New(waitlist.Deps{DB: d.DB, Site: d.Site, Chrome: chrome{a}, Tell: a.tellLetters, InviteFor: d.InviteFor, Now: d.Now,
		Races: waitlist.Races{Published: a.publishedRace, Event: a.store.Event, Standing: a.store.Standing, Take: a.takeInvitation}})
	a.svc.waitlist = a.waitlist.Service()
	a.rehearsals = a.newRehearsals()
	a.svc.sweepRehearsals = a.rehearsals.Sweep
	if err := a.svc.writer.Start(); err != nil {
		return nil, err
	}
	return a, nil
}

// Close stops the registration writer (after the batch under way); paid
// holds left are written by the next start or another instance.
func (a *App) Close() {
	a.rehearsals.Close(20 * time.Second) // a rehearsal's runners stop, and its report is stored
	a.svc.writer.Close()
}

// Service is the app's service layer, for tools and tests.
func (a *App) Service() *Service { return a.svc }

// Store gives tools (seed, demo, tests) the app's store.
func (a *App) Store() *Store { return a.store }

// changed raises race slug's stamp after a commit.
func (a *App) changed(slug string, v int64) {
	a.versions.Raise(versionScope, slug, version.Stamp{V: v})
}

// confirmations queues each registration's confirmation mail in the
// writer's transaction: the outbox's worker sends them at the configured
// rate, and a crash loses none.
func (a *App) confirmations(ctx context.Context, tx *db.Tx, regs []Registration) error {
	if a.Mail == nil {
		return nil
	}
	ids := make([]int64, len(regs))
	for i, r := range regs {
		ids[i] = r.EventID
	}
	info, err := a.store.EventsAbout(ctx, tx, ids)
	if err != nil {
		return err
	}
	// What the mail lists of each hold: the origin of the request that
	// made it (its links'), its team, discount and store lines.
	type held struct {
		base, team string
		discount   int64
		items      []string
	}
	holds := make([]any, len(regs))
	for i, r := range regs {
		holds[i] = r.HoldID
	}
	hs := map[string]*held{}
	if _, err := db.All(ctx, a.DB, tx, func(rows *sql.Rows) (h held, err error) {
		var id string
		err = rows.Scan(&id, &h.base, &h.discount, &h.team)
		hs[id] = &h
		return h, err
	}, `SELECT h.id, h.base, h.discount, COALESCE(t.name, '') FROM race_holds h
		LEFT JOIN race_teams t ON t.id = h.team_id WHERE h.id IN (`+db.Params(len(holds))+`)`, holds...); err != nil {
		return err
	}
	if _, err := db.All(ctx, a.DB, tx, func(rows *sql.Rows) (struct{}, error) {
		var hold, name string
		var qty, price int64
		err := rows.Scan(&hold, &name, &qty, &price)
		if h := hs[hold]; h != nil && err == nil {
			h.items = append(h.items, fmt.Sprintf("%d × %s at %s", qty, name, checkout.Of(price, "").Decimal()))
		}
		return struct{}{}, err
	}, `SELECT hi.hold_id, i.name, hi.qty, hi.price FROM race_hold_items hi
		JOIN race_items i ON i.id = hi.item_id WHERE hi.hold_id IN (`+db.Params(len(holds))+`) ORDER BY hi.hold_id, i.id`, holds...); err != nil {
		return err
	}
	msgs := make([]mail.Message, 0, len(regs))
	for _, r := range regs {
		x := info[r.EventID]
		loc, err := walltime.Location(x.TZ)
		if err != nil {
			loc = time.UTC
		}
		var b strings.Builder
		b.WriteString("Hello " + r.FirstName + ",\n\n")
		b.WriteString("You are registered for " + x.Race + ", " + x.Event + ".\n\n")
		b.WriteString("Bib number: " + strconv.Itoa(r.Bib) + "\n")
		b.WriteString("Start: " + x.StartsAt.In(loc).Format("Monday 2 January 2006, 15:04 MST") + "\n")
		h := hs[r.HoldID]
		if h == nil {
			h = &held{}
		}
		if r.Shirt != "" {
			b.WriteString("T-shirt size: " + r.Shirt + "\n")
		}
		if h.team != "" {
			b.WriteString("Team: " + h.team + "\n")
		}
		for _, it := range h.items {
			b.WriteString("Store: " + it + " " + x.Currency.Code() + "\n")
		}
		if r.Donation > 0 {
			b.WriteString("Donation: " + checkout.Of(r.Donation, x.Currency).String() + "\n")
		}
		if h.discount > 0 {
			b.WriteString("Discount: -" + checkout.Of(h.discount, x.Currency).String() + "\n")
		}
		b.WriteString("Total paid: " + checkout.Of(r.Amount, x.Currency).String() + "\n\n")
		b.WriteString("Your registration: " + a.Mail.Link(ctx, h.base, doneURL(x.Slug, r.HoldID)) + "\n")
		b.WriteString("Manage your registrations: " + a.Mail.Link(ctx, h.base, mineURL) + "\n\nSee you at the start!\n")
		msgs = append(msgs, mail.Message{To: r.Email,
			Subject: "You're registered: " + x.Race + " · " + x.Event + " (bib " + strconv.Itoa(r.Bib) + ")", Text: b.String()})
	}
	return a.Mail.EnqueueMany(ctx, tx, msgs)
}
