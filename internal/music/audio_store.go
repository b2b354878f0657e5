package music

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// setMedia records audio post id's saved file.
func (s *Store) setMedia(ctx context.Context, tx *db.Tx, id, mediaID int64) error {
	_, err := tx.Exec(ctx, "UPDATE music_posts SET media_id = ? WHERE id = ? AND kind = 'audio'", mediaID, id)
	return err
}

// audioReady shows audio post id, its file mediaID processed: its peaks
// (nil: keep those stored, the browser's) and duration (ms, the file's).
func (s *Store) audioReady(ctx context.Context, tx *db.Tx, id, mediaID int64, peaks []byte, durationMS int64) error {
	set, args := "", []any{}
	if peaks != nil {
		set, args = "peaks = ?, ", append(args, peaks)
	}
	args = append(args, mediaID, durationMS, s.now().UnixMilli(), id)
	res, err := tx.Exec(ctx, "UPDATE music_posts SET "+set+"media_id = ?, duration_ms = ?, ready = 1, changed_at = ? WHERE id = ? AND kind = 'audio'", args...)
	if err != nil {
		return fmt.Errorf("music: audio ready: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return errs.ErrNotFound
	}
	_, err = bump(ctx, tx)
	return err
}

// play counts a listen of audio post id by user (0: a visitor), who must
// see it (the original, for a repost); a post that is not an audio is
// not found.
func (s *Store) play(ctx context.Context, tx *db.Tx, id, user int64) error {
	id, r, err := s.target(ctx, tx, id, user)
	if err != nil {
		return err
	}
	if r.Kind != KindAudio {
		return errs.ErrNotFound
	}
	_, err = tx.Exec(ctx, "UPDATE music_posts SET plays = plays + 1 WHERE id = ?", id)
	return err
}

// audioIDs are user's audio posts.
func (s *Store) audioIDs(ctx context.Context, q db.Querier, user int64) ([]int64, error) {
	return db.All(ctx, s.db, q, func(r *sql.Rows) (int64, error) {
		var id int64
		err := r.Scan(&id)
		return id, err
	}, "SELECT id FROM music_posts WHERE author_id = ? AND kind = 'audio'", user)
}

// clock writes ms as m:ss (h:mm:ss from an hour).
func clock(ms int64) string {
	s := max(ms, 0) / 1000
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
