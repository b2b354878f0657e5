package race

import (
	"context"

	"github.com/tutti-dev/tutti/internal/db"
)

// The SQL of a director's management of the race (service_manage.go).

// RemoveDirector takes user off race's directors.
func (s *Store) RemoveDirector(ctx context.Context, tx *db.Tx, raceID, userID int64) error {
	_, err := tx.Exec(ctx, `DELETE FROM race_directors WHERE race_id = ? AND user_id = ?`, raceID, userID)
	return err
}

// Unpublish makes race a draft again, if nobody has registered or holds a
// place (errRunnersIn otherwise).
func (s *Store) Unpublish(ctx context.Context, tx *db.Tx, raceID int64) error {
	n, err := tx.Exec(ctx, `UPDATE race_races SET published_at = NULL WHERE id = ?
		AND NOT EXISTS (SELECT 1 FROM race_registrations WHERE race_id = ?)
		AND NOT EXISTS (SELECT 1 FROM race_events WHERE race_id = ? AND taken > 0)`, raceID, raceID, raceID)
	if err != nil {
		return err
	}
	if k, _ := n.RowsAffected(); k == 0 {
		return errRunnersIn
	}
	return nil
}

// DeleteDraft deletes race if it is a draft (its rows go with it).
func (s *Store) DeleteDraft(ctx context.Context, tx *db.Tx, raceID int64) error {
	n, err := tx.Exec(ctx, `DELETE FROM race_races WHERE id = ? AND published_at IS NULL`, raceID)
	if err != nil {
		return err
	}
	if k, _ := n.RowsAffected(); k == 0 {
		return errDraftsOnly
	}
	return nil
}
