package race

import (
	"context"
	"errors"

	"github.com/maypok86/otter/v2"

	"github.com/tutti-dev/tutti/internal/errs"
)

// Runners' pages (the wizard, the waiting room) read a published race
// through a cache in this process: decoded once per version and
// placesEvery period, one load at a time per key, so that a rush of
// wizard pages asks the database nothing about the race. A director's
// edit raises the version, so the next read is current; places left may
// be placesEvery old, as on the race page, and the claim decides in the
// database. The races are shared: read them, never change them.

// raceKey is a race at one pageVersion.
type raceKey struct {
	slug string
	v    int64
}

func newRaceCache() *otter.Cache[raceKey, *Race] {
	return otter.Must(&otter.Options[raceKey, *Race]{
		MaximumSize:      10_000,
		ExpiryCalculator: otter.ExpiryWriting[raceKey, *Race](2 * placesEvery),
	})
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
	k := raceKey{slug, pageVersion(st, s.now())}
	return s.races.Get(ctx, k, otter.LoaderFunc[raceKey, *Race](func(ctx context.Context, k raceKey) (*Race, error) {
		return s.published(ctx, k.slug)
	}))
}

// published is race slug read from the database, if published.
func (s *Service) published(ctx context.Context, slug string) (*Race, error) {
	r, err := s.store.RaceBySlug(ctx, s.db, slug)
	if errors.Is(err, errs.ErrNotFound) || err == nil && !r.Published() {
		return nil, errNoRace
	}
	return r, err
}
