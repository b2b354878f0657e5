package music

import (
	"context"
	"fmt"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// lastComment is author's newest comment on post: the one a write just
// added, for the API to answer with (Service.CommentOn).
func (s *Store) lastComment(ctx context.Context, post, author int64) (*Comment, error) {
	cs, err := db.All(ctx, s.db, s.db, scanComment, `SELECT c.id, c.post_id, c.body, c.created_at, COALESCE(c.at_ms, -1),
			u.id, u.username, u.display_name, u.avatar
		FROM music_comments c JOIN users u ON u.id = c.author_id
		WHERE c.post_id = ? AND c.author_id = ? ORDER BY c.id DESC LIMIT 1`, post, author)
	if err != nil {
		return nil, fmt.Errorf("music: last comment: %w", err)
	}
	if len(cs) == 0 {
		return nil, fmt.Errorf("music: last comment of %d on %d: %w", author, post, errs.ErrNotFound)
	}
	return &cs[0], nil
}
