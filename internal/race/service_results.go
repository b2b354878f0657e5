package race

import (
	"context"
	"errors"
	"io"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// ResultsPerPage is how many results a page lists.
const ResultsPerPage = 10

// Suggestions is how many names the search box offers at most.
const Suggestions = 8

var errNoResults = errs.E(errs.NotFound, "There are no results for this race yet.")

// Imported is what an import did.
type Imported struct{ Count, Skipped int }

// ImportResults reads a results file (ParseResults) and makes it event
// id's results, replacing any before, in one transaction that raises the
// race's version: every cached results page shows the new ones at once.
// Published results stay published. A bad file changes nothing.
func (s *Service) ImportResults(ctx context.Context, d *Directing, id int64, r io.Reader) (Imported, error) {
	if _, ok := d.Race.Event(id); !ok {
		return Imported{}, errs.ErrNotFound
	}
	rs, skipped, err := ParseResults(ctx, r)
	if err != nil {
		return Imported{}, err
	}
	err = s.edit(ctx, d, func(tx *db.Tx) error { return s.store.ReplaceResults(ctx, tx, id, rs) })
	return Imported{Count: len(rs), Skipped: skipped}, err
}

// PublishResults shows event id's results to runners, or hides them again.
func (s *Service) PublishResults(ctx context.Context, d *Directing, id int64, publish bool) error {
	if _, ok := d.Race.Event(id); !ok {
		return errs.ErrNotFound
	}
	return s.edit(ctx, d, func(tx *db.Tx) error {
		if !publish {
			return s.store.PublishResults(ctx, tx, id, nil)
		}
		now := s.now()
		return s.store.PublishResults(ctx, tx, id, &now)
	})
}

// ResultsView is what a results page shows.
type ResultsView struct {
	Race    *Race
	Event   *Event
	Query   ResultsQuery
	Rows    []Result
	Pages   int  // the whole list's pages (when not searching)
	More    bool // a search's next page exists
	Preview bool // a director's look at results runners cannot see yet
}

// Shown reports whether the page lists event e's results among its
// choices (published, or imported for a director's preview).
func (v *ResultsView) Shown(e *Event) bool {
	return e.ResultsOut() || v.Preview && e.ResultsCount > 0
}

// Results is a results page of event id of race slug (id 0: the first
// event with results). Runners (u nil) see published results only; a
// director u sees the event's imported results too, as a preview; anyone
// else is told there are none.
func (s *Service) Results(ctx context.Context, u *auth.User, slug string, id int64, q ResultsQuery) (*ResultsView, error) {
	v, err := s.resultsEvent(ctx, u, slug, id)
	if err != nil {
		return nil, err
	}
	v.Query = q
	e := v.Event
	switch {
	case q.Bib > 0:
		v.Rows, err = s.store.ResultByBib(ctx, e.ID, q.Bib)
	case len(q.Words) > 0:
		if q.Page > maxSearchPage {
			return nil, errs.ErrNotFound
		}
		v.Rows, err = s.store.SearchResults(ctx, e.ID, e.ResultsCount, q.Words, (q.Page-1)*ResultsPerPage, ResultsPerPage+1)
		if len(v.Rows) > ResultsPerPage {
			v.Rows, v.More = v.Rows[:ResultsPerPage], true
		}
	default:
		v.Pages = (e.ResultsCount + ResultsPerPage - 1) / ResultsPerPage
		if q.Page > v.Pages {
			return nil, errs.ErrNotFound
		}
		v.Rows, err = s.store.Results(ctx, e.ID, (q.Page-1)*ResultsPerPage, ResultsPerPage)
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
// placed first. Who may see them is as for Results.
func (s *Service) Suggest(ctx context.Context, u *auth.User, slug string, id int64, q ResultsQuery) ([]Suggestion, error) {
	out := []Suggestion{}
	if q.Bib == 0 && q.Letters() < 2 {
		return out, nil
	}
	v, err := s.resultsEvent(ctx, u, slug, id)
	if err != nil {
		return nil, err
	}
	var rs []Result
	if q.Bib > 0 {
		rs, err = s.store.ResultByBib(ctx, v.Event.ID, q.Bib)
	} else {
		rs, err = s.store.SearchResults(ctx, v.Event.ID, v.Event.ResultsCount, q.Words, 0, Suggestions)
	}
	for _, r := range rs {
		out = append(out, Suggestion{Name: r.Name, Bib: r.Bib})
	}
	return out, err
}

// resultsEvent finds the race and the event whose results u may see.
func (s *Service) resultsEvent(ctx context.Context, u *auth.User, slug string, id int64) (*ResultsView, error) {
	v := &ResultsView{}
	if u == nil {
		r, err := s.Race(ctx, slug)
		if err != nil {
			return nil, err
		}
		v.Race = r
	} else {
		d, err := s.Directed(ctx, u, slug)
		if errors.Is(err, errNotDir) {
			return nil, errNoResults
		}
		if err != nil {
			return nil, err
		}
		v.Race, v.Preview = d.Race, true
	}
	for i := range v.Race.Events {
		if e := &v.Race.Events[i]; (id == 0 || e.ID == id) && v.Shown(e) {
			v.Event = e
			break
		}
	}
	if v.Event == nil {
		return nil, errNoResults
	}
	return v, nil
}
