package race

import (
	"context"
	"errors"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// The SQL of changes after registering (changes.go): a registration's
// details, the race's rule of changes and refunds, an event closed by a
// director.

// SetPolicy stores race's cutoff of changes and refund rule.
func (s *Store) SetPolicy(ctx context.Context, tx *db.Tx, raceID int64, editUntil *time.Time, rf Refund) error {
	_, err := tx.Exec(ctx, `UPDATE race_races SET edit_until = ?, refund_percent = ?, refund_until = ? WHERE id = ?`,
		msOrNil(editUntil), rf.Percent, msOrNil(rf.Until), raceID)
	return err
}

// SetClosed closes race's event (at) or opens it again (at nil);
// ErrNotFound if race has no such event.
func (s *Store) SetClosed(ctx context.Context, tx *db.Tx, raceID, eventID int64, at *time.Time) error {
	res, err := tx.Exec(ctx, `UPDATE race_events SET closed_at = ? WHERE id = ? AND race_id = ?`, msOrNil(at), eventID, raceID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.ErrNotFound
	}
	return nil
}

// teamName is team id's name ("" for none, or gone).
func teamName(ctx context.Context, q db.Querier, id int64) (string, error) {
	var name string
	if id == 0 {
		return "", nil
	}
	err := db.Scan(q.QueryRow(ctx, `SELECT name FROM race_teams WHERE id = ?`, id), &name)
	if errors.Is(err, errs.ErrNotFound) {
		return "", nil
	}
	return name, err
}

// ChangeRegistration stores change c (cleaned) on registration id of race:
// its names, its T-shirt size, and, when the race has teams, its team
// (joined by name, created if new; the team left is removed if nobody is
// in it any more). userID > 0 limits it to that runner's registration. It
// returns the registration as it was, with its team's name. ErrNotFound
// if there is no such registration; errCancelledAlready if it is
// cancelled.
func (s *Store) ChangeRegistration(ctx context.Context, tx *db.Tx, raceID, id, userID int64, c ChangeInput, teams bool, now time.Time) (Registration, error) {
	q, args := `SELECT `+regCols+` FROM race_registrations WHERE id = ? AND race_id = ?`, []any{id, raceID}
	if userID > 0 {
		q, args = q+` AND user_id = ?`, append(args, userID)
	}
	q += forUpdate(tx) // a director's edit and the runner's at once: one after the other
	was, err := scanReg(tx.QueryRow(ctx, q, args...))
	if err != nil {
		return was, err
	}
	if was.Status != "confirmed" {
		return was, errCancelledAlready
	}
	if was.TeamName, err = teamName(ctx, tx, was.TeamID); err != nil {
		return was, err
	}
	team := was.TeamID
	if teams {
		team = 0
		if c.Team != "" {
			if team, err = s.JoinTeam(ctx, tx, raceID, c.Team, now); err != nil {
				return was, err
			}
		}
	}
	var teamID any
	if team != 0 {
		teamID = team
	}
	if _, err := tx.Exec(ctx, `UPDATE race_registrations SET first_name = ?, last_name = ?, name_key = ?, shirt = ?, team_id = ?
		WHERE id = ?`, c.FirstName, c.LastName, NameKey(c.FirstName+" "+c.LastName), c.Shirt, teamID, id); err != nil {
		return was, err
	}
	if team == was.TeamID {
		return was, nil
	}
	// The hold it was written from names the team too (a team is kept
	// while a hold or a registration is in it): it follows.
	if _, err := tx.Exec(ctx, `UPDATE race_holds SET team_id = ? WHERE id = ?`, teamID, was.HoldID); err != nil {
		return was, err
	}
	s.holdsChanged(tx, was.HoldID)
	if was.TeamID != 0 {
		return was, s.LeaveTeam(ctx, tx, was.TeamID)
	}
	return was, nil
}
