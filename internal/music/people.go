package music

import (
	"context"
	"errors"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/social"
)

// SearchLimit is how many people a search page shows.
const SearchLimit = 20

// Found is a person people search found, with how the viewer stands to
// them (the button their row shows).
type Found struct {
	social.Person
	Tie social.Tie
	Me  bool // the viewer
}

// Results is a page of people search.
type Results struct {
	People []Found
	Next   db.Cursor // the cursor of the next page (zero: the end)
}

// Search is people search, the core's (auth.Service.FindPeople): the
// accounts with a word of their username or display name starting with
// each word of q, accents and case aside ("zoe" finds Zoë), oldest first,
// after the cursor; with, for a signed-in viewer, how they stand to each,
// read in one query for the page (social.Graph.Ties). People who block the
// viewer are left out: their profile is not found for them either.
func (s *Service) Search(ctx context.Context, u *auth.User, q string, after db.Cursor) (*Results, error) {
	if s.people == nil {
		return nil, errors.New("music: people search: no auth service")
	}
	found, next, err := s.people.FindPeople(ctx, q, SearchLimit, after)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(found))
	for i, p := range found {
		ids[i] = p.ID
	}
	ties, err := s.store.graph.Ties(ctx, s.store.db, viewerID(u), ids)
	if err != nil {
		return nil, err
	}
	out := &Results{Next: next, People: make([]Found, 0, len(found))}
	for _, p := range found {
		t := ties[p.ID]
		if t.BlocksMe {
			continue
		}
		out.People = append(out.People, Found{Person: social.Person{ID: p.ID, Username: p.Username,
			DisplayName: p.DisplayName, Avatar: p.Avatar}, Tie: t, Me: p.ID == viewerID(u)})
	}
	return out, nil
}
