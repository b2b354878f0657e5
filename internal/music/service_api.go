package music

import (
	"context"

	"github.com/tutti-dev/tutti/internal/auth"
	"github.com/tutti-dev/tutti/internal/errs"
)

// What the JSON API (api*.go) asks of the Service beyond what the pages
// ask: the same rules, as values a client can be given.

// CommentsPage is how many comments a page of the API gives.
const CommentsPage = 50

// Comments returns a page of post id's comments (its original's, for a
// repost), oldest first, after the comment id after, and the next page's
// cursor (0: the end), if u may see the post (else not found).
func (s *Service) Comments(ctx context.Context, u *auth.User, id, after int64) ([]Comment, int64, error) {
	p, err := s.store.Post(ctx, viewerID(u), id)
	if err != nil {
		return nil, 0, err
	}
	return s.store.Comments(ctx, viewerID(u), p.Target().ID, after, CommentsPage)
}

// Relation returns the person named name as u stands to them; a person
// who blocks u is not found, as on their page.
func (s *Service) Relation(ctx context.Context, u *auth.User, name string) (*Profile, error) {
	p, err := s.store.Profile(ctx, viewerID(u), name)
	if err != nil {
		return nil, err
	}
	if p.BlocksMe {
		return nil, errs.ErrNotFound
	}
	return p, nil
}
