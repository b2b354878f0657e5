package results

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// PerPage is how many results a page lists.
const PerPage = 10

// Suggestions is how many names the search box offers at most.
const Suggestions = 8

// ErrNone is a results page nobody may see yet: no results published (or
// imported, for a director).
var ErrNone = errs.E(errs.NotFound, "There are no results for this race yet.")

// Races is what the results need of race: its races as runners and
// directors see them, and its edits.
type Races struct {
	// Published is race slug for runners (published only): races.ErrNoRace
	// else.
	Published func(ctx context.Context, slug string) (*races.Race, error)
	// Directed is race slug for its director u: races.ErrNoRace for a
	// draft u does not direct, races.ErrNotDirector for a published one.
	Directed func(ctx context.Context, u *auth.User, slug string) (*races.Race, error)
	// Edit runs write in one transaction that raises the race's version:
	// every page cached under it is stale once it commits.
	Edit func(ctx context.Context, d *races.Directing, write func(tx *db.Tx) error) error
}

// Service decides who sees which results and imports them; it calls the
// Store.
type Service struct {
	store *Store
	races Races
	now   func() time.Time
}

// Imported is what an import did.
type Imported struct{ Count, Skipped int }

// Import reads a results file (Parse) and makes it event id's results,
// replacing any before, in one transaction that raises the race's version:
// every cached results page shows the new ones at once. Published results
// stay published. A bad file changes nothing.
func (s *Service) Import(ctx context.Context, d *races.Directing, id int64, r io.Reader) (Imported, error) {
	if _, ok := d.Race.Event(id); !ok {
		return Imported{}, errs.ErrNotFound
	}
	rs, skipped, err := Parse(ctx, r)
	if err != nil {
		return Imported{}, err
	}
	err = s.races.Edit(ctx, d, func(tx *db.Tx) error { return s.store.replace(ctx, tx, id, rs) })
	return Imported{Count: len(rs), Skipped: skipped}, err
}

// Publish shows event id's results to runners, or hides them again.
func (s *Service) Publish(ctx context.Context, d *races.Directing, id int64, publish bool) error {
	if _, ok := d.Race.Event(id); !ok {
		return errs.ErrNotFound
	}
	return s.races.Edit(ctx, d, func(tx *db.Tx) error {
		if !publish {
			return s.store.publish(ctx, tx, id, nil)
		}
		now := s.now()
		return s.store.publish(ctx, tx, id, &now)
	})
}

// View is what a results page shows.
type View struct {
	Race  *races.Race
	Event *races.Event
	Query Query
	Rows  []Result
	Pages int // the whole list's pages (when not searching)
	// Next is where a search's next page starts (zero: none follows).
	Next    db.Cursor
	Preview bool // a director's look at results runners cannot see yet
}

// Shown reports whether the page lists event e's results among its
// choices (published, or imported for a director's preview).
func (v *View) Shown(e *races.Event) bool {
	return e.ResultsOut() || v.Preview && e.ResultsCount > 0
}

// Page is a results page of event id of race slug (id 0: the first event
// with results). Runners (u nil) see published results only; a director u
// sees the event's imported results too, as a preview; anyone else is told
// there are none (ErrNone).
func (s *Service) Page(ctx context.Context, u *auth.User, slug string, id int64, q Query) (*View, error) {
	v, err := s.event(ctx, u, slug, id)
	if err != nil {
		return nil, err
	}
	v.Query = q
	e := v.Event
	switch {
	case q.Bib > 0:
		v.Rows, err = s.store.byBib(ctx, e.ID, q.Bib)
	case len(q.Words) > 0:
		v.Rows, err = s.store.Search(ctx, e.ID, e.ResultsCount, q.Words, q.After, PerPage+1)
		v.Rows, v.Next = db.Trim(v.Rows, PerPage, cursor)
	default:
		v.Pages = (e.ResultsCount + PerPage - 1) / PerPage
		if q.Page > v.Pages {
			return nil, errs.ErrNotFound
		}
		v.Rows, err = s.store.List(ctx, e.ID, (q.Page-1)*PerPage, PerPage)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Suggestion is a runner the search box offers.
type Suggestion struct {
	Name string `json:"name"`
	Bib  int    `json:"bib"`
}

// Suggest offers runners of event id whose name's words start with q's
// (two letters at least), or whose bib q is: at most Suggestions, best
// placed first. Who may see them is as for Page.
func (s *Service) Suggest(ctx context.Context, u *auth.User, slug string, id int64, q Query) ([]Suggestion, error) {
	out := []Suggestion{}
	if q.Bib == 0 && q.Letters() < 2 {
		return out, nil
	}
	v, err := s.event(ctx, u, slug, id)
	if err != nil {
		return nil, err
	}
	var rs []Result
	if q.Bib > 0 {
		rs, err = s.store.byBib(ctx, v.Event.ID, q.Bib)
	} else {
		rs, err = s.store.Search(ctx, v.Event.ID, v.Event.ResultsCount, q.Words, db.Cursor{}, Suggestions)
	}
	for _, r := range rs {
		out = append(out, Suggestion{Name: r.Name, Bib: r.Bib})
	}
	return out, err
}

// event finds the race and the event whose results u may see.
func (s *Service) event(ctx context.Context, u *auth.User, slug string, id int64) (*View, error) {
	v := &View{}
	if u == nil {
		r, err := s.races.Published(ctx, slug)
		if err != nil {
			return nil, err
		}
		v.Race = r
	} else {
		r, err := s.races.Directed(ctx, u, slug)
		if errors.Is(err, races.ErrNotDirector) {
			return nil, ErrNone
		}
		if err != nil {
			return nil, err
		}
		v.Race, v.Preview = r, true
	}
	for i := range v.Race.Events {
		if e := &v.Race.Events[i]; (id == 0 || e.ID == id) && v.Shown(e) {
			v.Event = e
			break
		}
	}
	if v.Event == nil {
		return nil, ErrNone
	}
	return v, nil
}
