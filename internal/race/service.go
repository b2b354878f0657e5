package race

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/files"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/media"
	"github.com/tutti-dev/tutti/internal/pay"
	"github.com/tutti-dev/tutti/internal/race/races"
	"github.com/tutti-dev/tutti/internal/race/waitlist"
	"github.com/tutti-dev/tutti/internal/version"
)

// Service owns every decision of race: who may see and change what, what
// is valid, and the registration pipeline (service_register.go). Handlers
// call it; it calls the Store.
type Service struct {
	store     *Store
	db        *db.DB
	batch     *db.Batcher // runners' small writes, committed together under load
	pay       pay.Gateway
	jobs      *jobs.Queue  // refunds; nil: none
	mail      *mail.Mailer // runners' notices (notices.go); nil: kept, not mailed
	users     func(ctx context.Context, name string) (*auth.User, error)
	usersGone func() // after users were removed here: auth's memory of them goes
	now       func() time.Time
	holdFor   time.Duration
	log       *slog.Logger
	// changed is told after a commit that changed what race slug shows.
	changed func(slug string, v int64)
	writer  *writer
	// versions and races serve Race: runners' reads of a race, decoded in
	// the core's object cache by slug at its pageVersion.
	versions version.Versions
	races    *cache.Decoded[string, *Race]
	// files stores logos (nil: none can be uploaded); images bounds their
	// decoding.
	files  files.Storage
	images *files.ImageBudget
	media  *media.Service
	// sweepRehearsals is the rehearsals' part of the sweep (package
	// rehearsals).
	sweepRehearsals func(context.Context) (int, error)
	// forgotten is the races each account deletion changed (map[string]int64,
	// slug to version), by user, from the deleting transaction to its
	// commit (account.go).
	forgotten sync.Map
	// waitlist is the events' waiting lists and lotteries (package waitlist).
	waitlist *waitlist.Service
}

// Not found and refusals that runners and directors see.
var (
	errNoRace = races.ErrNoRace
	errNotDir = races.ErrNotDirector
)

// Directing is a race as Service.Directed loaded it for one of its
// directors: the directors' methods take it, so a request loads the race
// and checks its director once.
type Directing struct {
	User *auth.User
	Race *Race
}

// Directed is race slug for its director u: a draft is not found for
// anyone else, a published race forbidden.
func (s *Service) Directed(ctx context.Context, u *auth.User, slug string) (*Directing, error) {
	if !ValidSlug(slug) {
		return nil, errNoRace
	}
	r, err := s.store.RaceBySlug(ctx, s.db, slug)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, errNoRace
	}
	if err != nil {
		return nil, err
	}
	ok, err := s.store.IsDirector(ctx, r.ID, u.ID)
	switch {
	case err != nil:
		return nil, err
	case !ok && !r.Published():
		return nil, errNoRace
	case !ok:
		return nil, errNotDir
	}
	return &Directing{User: u, Race: r}, nil
}

// CreateRace stores a draft race from the basics form, directed by u.
func (s *Service) CreateRace(ctx context.Context, u *auth.User, in RaceInput) (*Race, error) {
	r, f := in.Validate(s.now())
	if len(f) > 0 {
		return nil, errs.Fields(f)
	}
	r.OwnerID = u.ID
	if err := s.store.CreateRace(ctx, &r, func() string { return strings.ToLower(rand.Text()[:4]) }, s.now()); err != nil {
		return nil, err
	}
	return &r, nil
}

// edit runs write, already validated, on the directed race in a
// transaction that raises the race's version, and tells the caches after
// the commit.
func (s *Service) edit(ctx context.Context, d *Directing, write func(tx *db.Tx) error) error {
	return s.editRace(ctx, d.Race.ID, d.Race.Slug, write)
}

// editRace is edit for race id (slug) without a director: the sweep's
// changes (a rehearsal's refunds, rehearsals.go).
func (s *Service) editRace(ctx context.Context, id int64, slug string, write func(tx *db.Tx) error) error {
	var v int64
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		if err := write(tx); err != nil {
			return err
		}
		var err error
		v, err = s.store.bump(ctx, tx, id, s.now())
		return err
	})
	if err != nil {
		return err
	}
	s.changed(slug, v)
	return nil
}

// UpdateBasics stores the basics form (a place changed is told to the
// runners: updateBasics). The race day and zone may change only before
// any event exists (event times are stored as instants).
func (s *Service) UpdateBasics(ctx context.Context, d *Directing, in RaceInput) error {
	r := d.Race
	nr, f := in.Validate(s.now())
	if len(r.Events) > 0 && (nr.Date != r.Date || nr.TZ != r.TZ) && len(f) == 0 {
		f["date"] = "Remove the events first to move the race day or its time zone (their times follow them)."
	}
	if len(f) > 0 {
		return errs.Fields(f)
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.updateBasics(ctx, tx, r, nr) })
}

// UpdateText stores the information and the waiver.
func (s *Service) UpdateText(ctx context.Context, d *Directing, in TextInput) error {
	info, waiver, f := in.Validate()
	if len(f) > 0 {
		return errs.Fields(f)
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.UpdateText(ctx, tx, d.Race.ID, info, waiver) })
}

// AddEvent adds an event from its form.
func (s *Service) AddEvent(ctx context.Context, d *Directing, in EventInput) error {
	e, f := in.Validate(d.Race)
	if len(f) > 0 {
		return errs.Fields(f)
	}
	e.RaceID = d.Race.ID
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.AddEvent(ctx, tx, &e, s.now()) })
}

// UpdateEvent changes an event from its form; a start moved is told to
// its runners (updateEvent).
func (s *Service) UpdateEvent(ctx context.Context, d *Directing, id int64, in EventInput) error {
	if _, ok := d.Race.Event(id); !ok {
		return errs.ErrNotFound
	}
	e, f := in.Validate(d.Race)
	if len(f) > 0 {
		return errs.Fields(f)
	}
	e.ID, e.RaceID = id, d.Race.ID
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.updateEvent(ctx, tx, d.Race, e) })
}

// DeleteEvent deletes an event nobody is registered for.
func (s *Service) DeleteEvent(ctx context.Context, d *Directing, id int64) error {
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.DeleteEvent(ctx, tx, d.Race.ID, id) })
}

// Publish opens the race to runners; it needs an event and a waiver.
func (s *Service) Publish(ctx context.Context, d *Directing) error {
	switch {
	case len(d.Race.Events) == 0:
		return errs.E(errs.Conflict, "Add at least one event before publishing.")
	case strings.TrimSpace(d.Race.Waiver) == "":
		return errs.E(errs.Conflict, "Write the waiver runners accept before publishing.")
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.Publish(ctx, tx, d.Race.ID, s.now()) })
}

// AddDirector makes the account named name a co-director.
func (s *Service) AddDirector(ctx context.Context, d *Directing, name string) error {
	other, err := s.users(ctx, strings.TrimSpace(name))
	if errors.Is(err, errs.ErrNotFound) {
		return errs.Fields(map[string]string{"username": "There is no account with that username."})
	}
	if err != nil {
		return err
	}
	return s.edit(ctx, d, func(tx *db.Tx) error { return s.store.AddDirector(ctx, tx, d.Race.ID, other.ID, s.now()) })
}

// Directors are race's directors' usernames, for a director.
func (s *Service) Directors(ctx context.Context, r *Race) ([]string, error) {
	return s.store.Directors(ctx, r.ID)
}

// DirectedBy lists u's races.
func (s *Service) DirectedBy(ctx context.Context, u *auth.User) ([]RaceRow, error) {
	return s.store.DirectedBy(ctx, u.ID)
}

// Upcoming lists the published races from today on.
func (s *Service) Upcoming(ctx context.Context) ([]RaceRow, error) {
	return s.store.Upcoming(ctx, s.db.Lagging(), s.now().UTC().AddDate(0, 0, -1).Format(time.DateOnly), 100)
}

// Runners' pages (the wizard, the waiting room) read a published race
// through the process's object cache (cache.Decoded): decoded once per
// version and placesEvery period, one load at a time per race, so that a
// rush of wizard pages asks the database nothing about the race. A
// director's edit raises the version, so the next read is current (and the
// old race's memory is freed); places left may be placesEvery old, as on
// the race page, and the claim decides in the database. The races are
// shared: read them, never change them.

// newRaceCache is the view of objects (nil: one of its own) that keeps
// the races, each at most two periods after it was read.
func newRaceCache(objects *cache.Objects) *cache.Decoded[string, *Race] {
	return cache.NewDecoded[string, *Race](objects, "race", 2*placesEvery, nil)
}

// Race is race slug for a runner: published only, as the cache has it.
func (s *Service) Race(ctx context.Context, slug string) (*Race, error) {
	if !ValidSlug(slug) {
		return nil, errNoRace
	}
	st, err := s.versions.Get(ctx, versionScope, slug)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, errNoRace
	}
	if err != nil {
		return nil, err
	}
	return s.races.Get(ctx, slug, pageVersion(st, s.now()), func(ctx context.Context) (*Race, error) {
		return s.published(ctx, slug)
	})
}

// published is race slug read from the database, if published.
func (s *Service) published(ctx context.Context, slug string) (*Race, error) {
	r, err := s.store.RaceBySlug(ctx, s.db, slug)
	if errors.Is(err, errs.ErrNotFound) || err == nil && !r.Published() {
		return nil, errNoRace
	}
	return r, err
}
