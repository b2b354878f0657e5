package race

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/jobs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// Service owns every decision of race: who may see and change what, what
// is valid, and the registration pipeline (service_register.go). Handlers
// call it; it calls the Store.
type Service struct {
	store   *Store
	db      *db.DB
	batch   *db.Batcher // runners' small writes, committed together under load
	pay     pay.Gateway
	jobs    *jobs.Queue // refunds; nil: none
	users   func(ctx context.Context, name string) (*auth.User, error)
	now     func() time.Time
	holdFor time.Duration
	log     *slog.Logger
	// changed is told after a commit that changed what race slug shows.
	changed func(slug string, v int64)
	writer  *writer
}

// Not found and refusals that runners and directors see.
var (
	errNoRace = errs.E(errs.NotFound, "There is no such race.")
	errNotDir = errs.E(errs.Forbidden, "Only this race's directors can do that.")
)

// Race is race slug for a runner: published only.
func (s *Service) Race(ctx context.Context, slug string) (*Race, error) {
	if !ValidSlug(slug) {
		return nil, errNoRace
	}
	r, err := s.store.RaceBySlug(ctx, s.db, slug)
	if errors.Is(err, errs.ErrNotFound) || err == nil && !r.Published() {
		return nil, errNoRace
	}
	return r, err
}

// Directed is race slug for its director u: a draft is not found for
// anyone else, a published race forbidden.
func (s *Service) Directed(ctx context.Context, u *auth.User, slug string) (*Race, error) {
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
	return r, nil
}

// CreateRace stores a draft race from the basics form, directed by u.
func (s *Service) CreateRace(ctx context.Context, u *auth.User, in RaceInput) (*Race, error) {
	r, f := in.Validate(s.now())
	if len(f) > 0 {
		return nil, errs.Fields(f)
	}
	r.OwnerID = u.ID
	if err := s.store.CreateRace(ctx, &r, func() string { return hexToken(2) }, s.now()); err != nil {
		return nil, err
	}
	return &r, nil
}

// edit runs fn on race slug, directed by u, in a transaction that raises
// the race's version, and tells the caches after the commit.
func (s *Service) edit(ctx context.Context, u *auth.User, slug string, fn func(tx *db.Tx, r *Race) error) (*Race, error) {
	r, err := s.Directed(ctx, u, slug)
	if err != nil {
		return nil, err
	}
	var v int64
	err = s.db.WithTx(ctx, func(tx *db.Tx) error {
		if err := fn(tx, r); err != nil {
			return err
		}
		v, err = s.store.bump(ctx, tx, r.ID, s.now())
		return err
	})
	if err != nil {
		return nil, err
	}
	s.changed(slug, v)
	return r, nil
}

// UpdateBasics stores the basics form. The race day and zone may change
// only before any event exists (event times are stored as instants).
func (s *Service) UpdateBasics(ctx context.Context, u *auth.User, slug string, in RaceInput) error {
	_, err := s.edit(ctx, u, slug, func(tx *db.Tx, r *Race) error {
		nr, f := in.Validate(s.now())
		if len(r.Events) > 0 && (nr.Date != r.Date || nr.TZ != r.TZ) && len(f) == 0 {
			f["date"] = "Remove the events first to move the race day or its time zone (their times follow them)."
		}
		if len(f) > 0 {
			return errs.Fields(f)
		}
		return s.store.UpdateBasics(ctx, tx, r.ID, nr)
	})
	return err
}

// UpdateText stores the information and the waiver.
func (s *Service) UpdateText(ctx context.Context, u *auth.User, slug string, in TextInput) error {
	_, err := s.edit(ctx, u, slug, func(tx *db.Tx, r *Race) error {
		info, waiver, f := in.Validate()
		if len(f) > 0 {
			return errs.Fields(f)
		}
		return s.store.UpdateText(ctx, tx, r.ID, info, waiver)
	})
	return err
}

// SetLogo stores the URL of an uploaded logo.
func (s *Service) SetLogo(ctx context.Context, u *auth.User, slug, url string) error {
	_, err := s.edit(ctx, u, slug, func(tx *db.Tx, r *Race) error { return s.store.SetLogo(ctx, tx, r.ID, url) })
	return err
}

// AddEvent adds an event from its form.
func (s *Service) AddEvent(ctx context.Context, u *auth.User, slug string, in EventInput) error {
	_, err := s.edit(ctx, u, slug, func(tx *db.Tx, r *Race) error {
		e, f := in.Validate(r)
		if len(f) > 0 {
			return errs.Fields(f)
		}
		e.RaceID = r.ID
		return s.store.AddEvent(ctx, tx, &e, s.now())
	})
	return err
}

// UpdateEvent changes an event from its form.
func (s *Service) UpdateEvent(ctx context.Context, u *auth.User, slug string, id int64, in EventInput) error {
	_, err := s.edit(ctx, u, slug, func(tx *db.Tx, r *Race) error {
		if _, ok := r.Event(id); !ok {
			return errs.ErrNotFound
		}
		e, f := in.Validate(r)
		if len(f) > 0 {
			return errs.Fields(f)
		}
		e.ID, e.RaceID = id, r.ID
		return s.store.UpdateEvent(ctx, tx, e)
	})
	return err
}

// DeleteEvent deletes an event nobody is registered for.
func (s *Service) DeleteEvent(ctx context.Context, u *auth.User, slug string, id int64) error {
	_, err := s.edit(ctx, u, slug, func(tx *db.Tx, r *Race) error { return s.store.DeleteEvent(ctx, tx, r.ID, id) })
	return err
}

// Publish opens the race to runners; it needs an event and a waiver.
func (s *Service) Publish(ctx context.Context, u *auth.User, slug string) error {
	_, err := s.edit(ctx, u, slug, func(tx *db.Tx, r *Race) error {
		switch {
		case len(r.Events) == 0:
			return errs.E(errs.Conflict, "Add at least one event before publishing.")
		case strings.TrimSpace(r.Waiver) == "":
			return errs.E(errs.Conflict, "Write the waiver runners accept before publishing.")
		}
		return s.store.Publish(ctx, tx, r.ID, s.now())
	})
	return err
}

// AddDirector makes the account named name a co-director.
func (s *Service) AddDirector(ctx context.Context, u *auth.User, slug, name string) error {
	other, err := s.users(ctx, strings.TrimSpace(name))
	if errors.Is(err, errs.ErrNotFound) {
		return errs.Fields(map[string]string{"username": "There is no account with that username."})
	}
	if err != nil {
		return err
	}
	_, err = s.edit(ctx, u, slug, func(tx *db.Tx, r *Race) error { return s.store.AddDirector(ctx, tx, r.ID, other.ID, s.now()) })
	return err
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

// token returns n random bytes, URL-safe.
func token(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// hexToken is n random bytes in lower-case hex (for a slug).
func hexToken(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
