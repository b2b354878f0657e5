package race

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

const regCols = `id, hold_id, race_id, event_id, user_id, bib, first_name, last_name, email, birth_date, gender, city, emergency,
	amount, payment_id, status, created_at, cancelled_at, checked_in_at, donation, coalesce(team_id, 0), shirt`

func scanReg(sc interface{ Scan(...any) error }) (Registration, error) {
	var r Registration
	var created int64
	var cancelled, checkedIn sql.NullInt64
	err := sc.Scan(&r.ID, &r.HoldID, &r.RaceID, &r.EventID, &r.UserID, &r.Bib, &r.FirstName, &r.LastName, &r.Email,
		&r.BirthDate, &r.Gender, &r.City, &r.Emergency, &r.Amount, &r.PaymentID, &r.Status, &created, &cancelled, &checkedIn,
		&r.Donation, &r.TeamID, &r.Shirt)
	r.CreatedAt, r.CancelledAt, r.CheckedInAt = ms(created), msPtr(cancelled), msPtr(checkedIn)
	return r, db.Translate(err)
}

func (s *Store) regs(ctx context.Context, q string, args ...any) ([]Registration, error) {
	rows, err := s.db.Query(ctx, `SELECT `+regCols+` FROM race_registrations `+q, args...)
	if err != nil {
		return nil, fmt.Errorf("race: registrations: %w", err)
	}
	defer rows.Close()
	var out []Registration
	for rows.Next() {
		r, err := scanReg(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Registration is registration id of race raceID (ErrNotFound: none, or
// another race's).
func (s *Store) Registration(ctx context.Context, raceID, id int64) (Registration, error) {
	return scanReg(s.db.QueryRow(ctx, `SELECT `+regCols+` FROM race_registrations WHERE id = ? AND race_id = ?`, id, raceID))
}

// SetRefunded records amount as given back on registration id and returns
// what its runner is told of: the registration (its user, race, event,
// first name, e-mail), the race's and event's names and the currency. A
// zero registration: recorded already, or gone with its account.
func (s *Store) SetRefunded(ctx context.Context, tx *db.Tx, id, amount int64) (reg Registration, race, event string, currency checkout.Currency, err error) {
	res, err := tx.Exec(ctx, `UPDATE race_registrations SET refunded = ? WHERE id = ? AND refunded <> ?`, amount, id, amount)
	if err != nil {
		return reg, "", "", "", err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return reg, "", "", "", nil
	}
	reg.ID = id
	err = db.Scan(tx.QueryRow(ctx, `SELECT g.user_id, g.race_id, g.event_id, g.first_name, g.email, r.name, e.name, r.currency
		FROM race_registrations g JOIN race_races r ON r.id = g.race_id JOIN race_events e ON e.id = g.event_id WHERE g.id = ?`, id),
		&reg.UserID, &reg.RaceID, &reg.EventID, &reg.FirstName, &reg.Email, &race, &event, &currency)
	return reg, race, event, currency, err
}

// RegistrationByHold is the registration written from hold id.
func (s *Store) RegistrationByHold(ctx context.Context, holdID string) (Registration, error) {
	r, err := scanReg(s.db.QueryRow(ctx, `SELECT `+regCols+` FROM race_registrations WHERE hold_id = ?`, holdID))
	if err == nil { // the team's name only when it has one (teamName asks nothing then): the confirmation is on the rush's path
		r.TeamName, err = teamName(ctx, s.db, r.TeamID)
	}
	if err != nil {
		return r, fmt.Errorf("race registration of hold: %w", err)
	}
	return r, nil
}

// Registered is user's confirmed registration in event, if any.
func (s *Store) Registered(ctx context.Context, eventID, userID int64) (*Registration, error) {
	r, err := scanReg(s.db.QueryRow(ctx, `SELECT `+regCols+` FROM race_registrations
		WHERE event_id = ? AND user_id = ? AND status = 'confirmed'`, eventID, userID))
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// MyRow is one of a runner's registrations, with its race.
type MyRow struct {
	Registration
	RaceSlug, RaceName, RaceDate, EventName string
	EventStarts                             time.Time
}

// ByUser lists user's registrations, newest first.
func (s *Store) ByUser(ctx context.Context, userID int64) ([]MyRow, error) {
	rows, err := s.db.Query(ctx, `SELECT r.id, r.hold_id, r.race_id, r.event_id, r.user_id, r.bib, r.first_name, r.last_name, r.email,
		r.birth_date, r.gender, r.city, r.emergency, r.amount, r.payment_id, r.status, r.created_at, r.cancelled_at,
		ra.slug, ra.name, ra.race_date, e.name, e.starts_at
		FROM race_registrations r JOIN race_races ra ON ra.id = r.race_id JOIN race_events e ON e.id = r.event_id
		WHERE r.user_id = ? ORDER BY r.id DESC LIMIT 200`, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []MyRow
	for rows.Next() {
		var m MyRow
		var created, starts int64
		var cancelled sql.NullInt64
		r := &m.Registration
		if err := rows.Scan(&r.ID, &r.HoldID, &r.RaceID, &r.EventID, &r.UserID, &r.Bib, &r.FirstName, &r.LastName, &r.Email,
			&r.BirthDate, &r.Gender, &r.City, &r.Emergency, &r.Amount, &r.PaymentID, &r.Status, &created, &cancelled,
			&m.RaceSlug, &m.RaceName, &m.RaceDate, &m.EventName, &starts); err != nil {
			return nil, err
		}
		r.CreatedAt, r.CancelledAt, m.EventStarts = ms(created), msPtr(cancelled), ms(starts)
		out = append(out, m)
	}
	return out, rows.Err()
}

// Entrants lists event's registrations (cancelled ones too) whose name
// starts with, or whose bib is, q ("" for all), by bib, after bib after
// (keyset), at most limit.
func (s *Store) Entrants(ctx context.Context, eventID int64, q string, after, limit int) ([]Registration, error) {
	where, args := `WHERE event_id = ? AND bib > ?`, []any{eventID, after}
	if q != "" {
		if n, ok := bibNumber(q); ok {
			where += ` AND bib = ?`
			args = append(args, n)
		} else {
			// A name's start, or a later word's (a last name).
			key := likePrefix(NameKey(q))
			where += ` AND (name_key LIKE ? ESCAPE '\' OR name_key LIKE ? ESCAPE '\')`
			args = append(args, key, "% "+key)
		}
	}
	return s.regs(ctx, where+` ORDER BY bib LIMIT ?`, append(args, limit)...)
}

// AllEntrants is every registration of event, by bib (the CSV export).
func (s *Store) AllEntrants(ctx context.Context, eventID int64) ([]Registration, error) {
	return s.regs(ctx, `WHERE event_id = ? ORDER BY bib`, eventID)
}

// errCancelledAlready: a registration cancelled twice (two directors, two
// sweeps).
var errCancelledAlready = errs.E(errs.Conflict, "This registration is cancelled already.")

// Cancel cancels a confirmed registration of race and frees its place,
// its store items and its code's use; it returns the registration as it
// was. ErrNotFound if race has no registration id (another race's, or
// none); errCancelledAlready if it is cancelled.
func (s *Store) Cancel(ctx context.Context, tx *db.Tx, raceID, id int64, now time.Time) (Registration, error) {
	r, err := scanReg(tx.QueryRow(ctx, `UPDATE race_registrations SET status = 'cancelled', cancelled_at = ?
		WHERE id = ? AND race_id = ? AND status = 'confirmed' RETURNING `+regCols, now.UnixMilli(), id, raceID))
	if errors.Is(err, errs.ErrNotFound) {
		// Not confirmed: cancelled already if it is this race's, else
		// there is no such registration here (another race's, or none).
		if _, err := scanReg(tx.QueryRow(ctx, `SELECT `+regCols+` FROM race_registrations WHERE id = ? AND race_id = ?`, id, raceID)); err != nil {
			return r, err
		}
		return r, errCancelledAlready
	}
	if err != nil {
		return r, err
	}
	// Confirmed first: the CHECK (confirmed <= taken) holds after each
	// statement.
	if _, err = tx.Exec(ctx, `UPDATE race_events SET confirmed = confirmed - 1 WHERE id = ?`, r.EventID); err != nil {
		return r, err
	}
	if err = eventPlaces.GiveBack(ctx, tx, 1, "id = ?", r.EventID); err != nil {
		return r, err
	}
	// Its store items go back to stock (the lines stay, the sale's
	// record), and its code's use to the code.
	lines, err := db.All(ctx, nil, tx, func(rows *sql.Rows) (l Line, err error) { return l, rows.Scan(&l.ItemID, &l.Qty) },
		`SELECT item_id, qty FROM race_hold_items WHERE hold_id = ? ORDER BY item_id`, r.HoldID)
	if err != nil {
		return r, err
	}
	for _, l := range lines {
		if err = itemUnits.GiveBack(ctx, tx, l.Qty, "id = ?", l.ItemID); err != nil {
			return r, err
		}
	}
	return r, codeUses.GiveBack(ctx, tx, 1, "id = (SELECT code_id FROM race_holds WHERE id = ?)", r.HoldID)
}

// bibNumber reads q as a bib number.
func bibNumber(q string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(q), "#")))
	return n, err == nil && n > 0
}

// likePrefix is a LIKE pattern for what starts with s.
func likePrefix(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s) + "%"
}

// CheckIn marks a confirmed registration of race as picked up at at, or
// not picked up (at nil). Conflict if it is cancelled, or already so.
func (s *Store) CheckIn(ctx context.Context, tx *db.Tx, raceID, id int64, at *time.Time) (Registration, error) {
	set, was := any(nil), "checked_in_at IS NOT NULL"
	if at != nil {
		set, was = at.UnixMilli(), "checked_in_at IS NULL"
	}
	r, err := scanReg(tx.QueryRow(ctx, `UPDATE race_registrations SET checked_in_at = ?
		WHERE id = ? AND race_id = ? AND status = 'confirmed' AND `+was+` RETURNING `+regCols, set, id, raceID))
	if !errors.Is(err, errs.ErrNotFound) {
		return r, err
	}
	cur, err := scanReg(tx.QueryRow(ctx, `SELECT `+regCols+` FROM race_registrations WHERE id = ? AND race_id = ?`, id, raceID))
	switch {
	case err != nil:
		return cur, err
	case cur.Status != "confirmed":
		return cur, errs.E(errs.Conflict, "This registration is cancelled: there is no bib to pick up.")
	case at != nil:
		return cur, errs.E(errs.Conflict, "Bib %d was picked up already.", cur.Bib)
	}
	return cur, errs.E(errs.Conflict, "Bib %d was not picked up.", cur.Bib)
}

// CheckInCounts is how many of event's confirmed runners have picked up
// their bibs, of how many.
func (s *Store) CheckInCounts(ctx context.Context, eventID int64) (in, all int, err error) {
	err = db.Scan(s.db.QueryRow(ctx, `SELECT count(checked_in_at), count(*) FROM race_registrations
		WHERE event_id = ? AND status = 'confirmed'`, eventID), &in, &all)
	return in, all, err
}
