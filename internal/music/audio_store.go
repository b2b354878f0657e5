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

// audioFailed records that the file mediaID of audio post id could not
// be read (the waveform job refused it or gave up): with peaks from the
// browser (it could decode the file: it plays there) the post is shown as
// ready with them; without, it stays its author's only, marked failed.
// Only a post still processing changes.
func (s *Store) audioFailed(ctx context.Context, tx *db.Tx, id, mediaID, durationMS int64) error {
	res, err := tx.Exec(ctx, `UPDATE music_posts SET media_id = ?, duration_ms = ?,
			ready = CASE WHEN peaks IS NULL THEN 0 ELSE 1 END, failed = CASE WHEN peaks IS NULL THEN 1 ELSE 0 END, changed_at = ?
		WHERE id = ? AND kind = 'audio' AND ready = 0`, mediaID, durationMS, s.now().UnixMilli(), id)
	if err != nil {
		return fmt.Errorf("music: audio failed: %w", err)
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
