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

// CommentOn adds u's comment to post id (as Comment) and returns it as
// stored: on the original, for a repost.
func (s *Service) CommentOn(ctx context.Context, u *auth.User, id int64, body string) (*Comment, error) {
	post, err := s.Comment(ctx, u, id, body)
	if err != nil {
		return nil, err
	}
	return s.store.lastComment(ctx, post, u.ID)
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
