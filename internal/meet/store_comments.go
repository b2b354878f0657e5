package meet

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// AddComment adds a participant's comment.
func (s *Store) AddComment(ctx context.Context, pollID string, c *Comment) (int64, error) {
	c.CreatedAt = s.now().UTC().Truncate(time.Second)
	return s.change(ctx, pollID, "add comment", func(ctx context.Context, tx *db.Tx) error {
		return db.Scan(tx.QueryRow(ctx, `INSERT INTO meet_comments (poll_id, participant_id, body, created_at)
			VALUES (?,?,?,?) RETURNING id`, pollID, c.ParticipantID, c.Body, c.CreatedAt.Unix()), &c.ID)
	})
}

// Comments returns a page of the poll's comments, newest first, older than
// the keyset cursor before (zero: the newest), at most limit, with the
// cursor of the next page. pid > 0 keeps only that participant's.
func (s *Store) Comments(ctx context.Context, pollID string, pid int64, before db.Cursor, limit int) ([]Comment, db.Cursor, error) {
	beforeID := before.ID
	if beforeID <= 0 {
		beforeID = 1<<62 - 1
	}
	q := `SELECT c.id, c.participant_id, p.name, c.body, c.created_at FROM meet_comments c
		JOIN meet_participants p ON p.id = c.participant_id
		WHERE c.poll_id = ? AND c.id < ?`
	args := []any{pollID, beforeID}
	if pid > 0 {
		q += ` AND c.participant_id = ?`
		args = append(args, pid)
	}
	q += ` ORDER BY c.id DESC LIMIT ?`
	args = append(args, limit+1)
	out, err := db.All(ctx, s.db, s.db, func(rows *sql.Rows) (Comment, error) {
		var c Comment
		var created int64
		err := rows.Scan(&c.ID, &c.ParticipantID, &c.Author, &c.Body, &created)
		c.CreatedAt = time.Unix(created, 0).UTC()
		return c, err
	}, q, args...)
	if err != nil {
		return nil, db.Cursor{}, fmt.Errorf("meet: comments: %w", err)
	}
	out, next := db.Trim(out, limit, func(c Comment) db.Cursor { return db.Cursor{ID: c.ID} })
	return out, next, nil
}

// ReplaceBusy stores a participant's imported busy times (no version bump:
// they are private to the participant's own grid).
func (s *Store) ReplaceBusy(ctx context.Context, pid int64, busy []Busy) error {
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM meet_busy WHERE participant_id = ?`, pid); err != nil {
			return err
		}
		for _, b := range busy {
			if _, err := tx.Exec(ctx, `INSERT INTO meet_busy (participant_id, start_at, end_at) VALUES (?,?,?)`,
				pid, b.Start.Unix(), b.End.Unix()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("meet: busy times: %w", err)
	}
	return nil
}

// Busy returns a participant's imported busy times.
func (s *Store) Busy(ctx context.Context, pid int64) ([]Busy, error) {
	rows, err := s.db.Query(ctx, `SELECT start_at, end_at FROM meet_busy WHERE participant_id = ? ORDER BY start_at`, pid)
	if err != nil {
		return nil, fmt.Errorf("meet: busy times: %w", err)
	}
	defer rows.Close()
	var out []Busy
	for rows.Next() {
		b := Busy{ParticipantID: pid}
		var a, e int64
		if err := rows.Scan(&a, &e); err != nil {
			return nil, fmt.Errorf("meet: busy times: %w", err)
		}
		b.Start, b.End = time.Unix(a, 0).UTC(), time.Unix(e, 0).UTC()
		out = append(out, b)
	}
	return out, rows.Err()
}
