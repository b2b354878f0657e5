package race

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// The codes' SQL (codes.go). A use is claimed by one conditional UPDATE
// (max_uses = 0 OR used < max_uses) in the transaction that puts the code
// on a hold, and given back when it leaves the hold (giveBack, Cancel).

const codeCols = `id, code, percent, early, max_uses, used`

func scanCode(sc interface{ Scan(...any) error }) (Code, error) {
	var c Code
	err := sc.Scan(&c.ID, &c.Code, &c.Percent, &c.Early, &c.MaxUses, &c.Used)
	return c, db.Translate(err)
}

// Codes are race's codes, newest first.
func (s *Store) Codes(ctx context.Context, raceID int64) ([]Code, error) {
	return db.All(ctx, s.db, s.db, func(rows *sql.Rows) (Code, error) { return scanCode(rows) },
		`SELECT `+codeCols+` FROM race_codes WHERE race_id = ? ORDER BY id DESC`, raceID)
}

// CodeByName is race's code c (as CleanCode stores it).
func (s *Store) CodeByName(ctx context.Context, q db.Querier, raceID int64, code string) (Code, error) {
	return scanCode(q.QueryRow(ctx, `SELECT `+codeCols+` FROM race_codes WHERE race_id = ? AND code = ?`, raceID, code))
}

// AddCode stores a new code of race; one of the same name is a field error.
func (s *Store) AddCode(ctx context.Context, tx *db.Tx, raceID int64, c Code, now time.Time) error {
	var n int
	if err := db.Scan(tx.QueryRow(ctx, `SELECT count(*) FROM race_codes WHERE race_id = ?`, raceID), &n); err != nil {
		return err
	}
	if n >= MaxCodes {
		return errs.E(errs.Conflict, "A race has at most %d codes.", MaxCodes)
	}
	_, err := tx.Exec(ctx, `INSERT INTO race_codes (race_id, code, percent, early, max_uses, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		raceID, c.Code, c.Percent, c.Early, c.MaxUses, now.UnixMilli())
	if errors.Is(db.Translate(err), errs.ErrConflict) {
		return errs.Fields(map[string]string{"code": "This race has that code already."})
	}
	return err
}

// DeleteCode deletes a code of race that no hold carries.
func (s *Store) DeleteCode(ctx context.Context, tx *db.Tx, raceID, id int64) error {
	res, err := tx.Exec(ctx, `DELETE FROM race_codes WHERE id = ? AND race_id = ? AND used = 0
		AND NOT EXISTS (SELECT 1 FROM race_holds WHERE code_id = ?)`, id, raceID, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notDeleted(ctx, tx, "race_codes", "code", raceID, id,
			errs.E(errs.Conflict, "Runners have used this code: it stays, as the record of their price."))
	}
	return nil
}

// errUsedUp refuses a code with no use left.
var errUsedUp = errs.Fields(map[string]string{"code": "This code has been used up."})

// claimUse takes a use of code id; errUsedUp if none is left.
func claimUse(ctx context.Context, tx *db.Tx, id int64) error {
	err := codeUses.Claim(ctx, tx, 1, "id = ?", id)
	if errors.Is(err, checkout.ErrNoStock) {
		return errUsedUp
	}
	return err
}

// SetCode puts code c on an open hold of user's (c nil: takes the hold's
// code off), claiming c's use and giving the one it had back; the discount
// is c's percent of the event's price as it is in the database then (a
// price changed meanwhile counts: see UpdateEvent).
func (s *Store) SetCode(ctx context.Context, tx *db.Tx, id string, userID int64, c *Code) error {
	// Read the code the hold has, locking its row on PostgreSQL.
	var had sql.NullInt64
	err := db.Scan(tx.QueryRow(ctx, `UPDATE race_holds SET step = step WHERE id = ? AND user_id = ? AND `+isHeld+`
		RETURNING code_id`, id, userID), &had)
	if errors.Is(err, errs.ErrNotFound) {
		return ErrHoldMoved
	}
	if err != nil {
		return err
	}
	var next any
	percent := 0
	if c != nil {
		percent = c.Percent
		if had.Valid && had.Int64 == c.ID {
			return nil
		}
		if err := claimUse(ctx, tx, c.ID); err != nil {
			return err
		}
		next = c.ID
	}
	if had.Valid {
		if err := codeUses.GiveBack(ctx, tx, 1, "id = ?", had.Int64); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, `UPDATE race_holds SET code_id = ?,
		discount = (SELECT ev.price FROM race_events ev WHERE ev.id = race_holds.event_id) * ? / 100 WHERE id = ?`, next, percent, id)
	s.holdsChanged(tx, id)
	return err
}

// ClaimEarly takes a place in h.EventID before it opens, with early-access
// code c (its use claimed too), and stores h as an open hold carrying it;
// false if no place was left or the event has closed (or a director
// closed it). errUsedUp if the
// code has no use left (nothing is taken).
func (s *Store) ClaimEarly(ctx context.Context, tx *db.Tx, h *Hold, c *Code, now time.Time) (bool, error) {
	if ok, err := claimed(eventPlaces.Claim(ctx, tx, 1, `id = ? AND waiting = 0 AND NOT lottery AND closes_at > ? AND closed_at IS NULL`,
		h.EventID, now.UnixMilli())); !ok {
		return false, err
	}
	if err := claimUse(ctx, tx, c.ID); err != nil {
		return false, err
	}
	err := insertHold(ctx, tx, h, c, now)
	return err == nil, err
}
