package rehearsals

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// store is the rehearsals' SQL: race_rehearsals, and what it reads of the
// copies' registrations and holds.
type store struct{ db *db.DB }

func ms(n int64) time.Time { return time.UnixMilli(n).UTC() }

func msPtr(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := ms(n.Int64)
	return &t
}

const rehearsalCols = `id, race_id, COALESCE(copy_id, 0), COALESCE(created_by, 0), created_at, settings, status, heartbeat_at, progress,
	report <> '', error, comment, finished_at, made, refunded, cleaned_at`

func scanRehearsal(sc interface{ Scan(...any) error }) (*rehearsal, error) {
	var rh rehearsal
	var created, beat int64
	var settings, progress string
	var finished, cleaned sql.NullInt64
	if err := sc.Scan(&rh.ID, &rh.RaceID, &rh.CopyID, &rh.CreatedBy, &created, &settings, &rh.Status, &beat, &progress,
		&rh.HasReport, &rh.Error, &rh.Comment, &finished, &rh.Made, &rh.Refunded, &cleaned); err != nil {
		return nil, err
	}
	rh.CreatedAt, rh.HeartbeatAt, rh.FinishedAt, rh.CleanedAt = ms(created), ms(beat), msPtr(finished), msPtr(cleaned)
	if err := json.Unmarshal([]byte(settings), &rh.Settings); err != nil {
		return nil, fmt.Errorf("race: rehearsal %d settings: %w", rh.ID, err)
	}
	if err := json.Unmarshal([]byte(progress), &rh.Progress); err != nil {
		return nil, fmt.Errorf("race: rehearsal %d progress: %w", rh.ID, err)
	}
	return &rh, nil
}

// list are race's rehearsals, newest first.
func (s *store) list(ctx context.Context, raceID int64, limit int) ([]*rehearsal, error) {
	return db.All(ctx, s.db, s.db, func(rows *sql.Rows) (*rehearsal, error) { return scanRehearsal(rows) },
		`SELECT `+rehearsalCols+` FROM race_rehearsals WHERE race_id = ? ORDER BY id DESC LIMIT ?`, raceID, limit)
}

// get is rehearsal id of race.
func (s *store) get(ctx context.Context, raceID, id int64) (*rehearsal, error) {
	return scanRehearsal(s.db.QueryRow(ctx, `SELECT `+rehearsalCols+` FROM race_rehearsals WHERE id = ? AND race_id = ?`, id, raceID))
}

// report is rehearsal id's stored report (JSON); "" if none yet.
func (s *store) report(ctx context.Context, id int64) (string, error) {
	var rep string
	err := db.Scan(s.db.QueryRow(ctx, `SELECT report FROM race_rehearsals WHERE id = ?`, id), &rep)
	return rep, err
}

// liveRehearsal is the state of a rehearsal under way.
const liveRehearsal = `status IN ('preparing', 'running', 'stopping')`

// rehearsalLock is the advisory lock key under which a rehearsal starts.
const rehearsalLock = "7431890226"

// add stores a new rehearsal of rh.RaceID, preparing, unless one is under
// way on the site (its heartbeat newer than since): a rehearsal is
// measured alone. It sets rh.ID.
func (s *store) add(ctx context.Context, rh *rehearsal, since time.Time) error {
	settings, err := json.Marshal(rh.Settings)
	if err != nil {
		return err
	}
	return s.db.WithTx(ctx, func(tx *db.Tx) error {
		// One at a time: SQLite has one writer; PostgreSQL's read
		// committed would let two instances both count none, so they
		// take a lock of the transaction's first.
		if tx.Dialect() == db.Postgres {
			if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(`+rehearsalLock+`)`); err != nil {
				return err
			}
		}
		var busy int
		if err := db.Scan(tx.QueryRow(ctx, `SELECT count(*) FROM race_rehearsals WHERE `+liveRehearsal+` AND heartbeat_at > ?`,
			since.UnixMilli()), &busy); err != nil {
			return err
		}
		if busy > 0 {
			return errs.E(errs.Conflict, "A rehearsal is under way on this site, and one runs at a time: start this one when it has ended.")
		}
		return db.Scan(tx.QueryRow(ctx, `INSERT INTO race_rehearsals (race_id, created_by, created_at, settings, refund_delay_s, status, heartbeat_at)
			VALUES (?, ?, ?, ?, ?, 'preparing', ?) RETURNING id`, rh.RaceID, rh.CreatedBy, rh.CreatedAt.UnixMilli(), string(settings),
			rh.Settings.RefundDelay, rh.CreatedAt.UnixMilli()), &rh.ID)
	})
}

// setCopy records copy as rehearsal id's copy of its race, in the
// transaction that made it.
func (s *store) setCopy(ctx context.Context, tx *db.Tx, id, copy int64) error {
	_, err := tx.Exec(ctx, `UPDATE race_rehearsals SET copy_id = ? WHERE id = ?`, copy, id)
	return err
}

// beat records a running rehearsal's gauges and heartbeat, and
// moves it to status (running, or done or failed with report and error at
// the end); it returns the status it has then: "stopping" is a
// director's request to stop, read by the instance running it; ErrNotFound
// if it is no longer under way (abandoned: see abandon).
func (s *store) beat(ctx context.Context, id int64, status string, p progress, report, failure string, now time.Time) (string, error) {
	progress, err := json.Marshal(p)
	if err != nil {
		return "", err
	}
	var finished, rep any
	if status == "done" || status == "failed" {
		finished = now.UnixMilli()
	}
	if report != "" {
		rep = report
	}
	var was string
	err = s.db.WithTx(ctx, func(tx *db.Tx) error {
		return db.Scan(tx.QueryRow(ctx, `UPDATE race_rehearsals SET progress = ?, heartbeat_at = ?,
		status = CASE WHEN status = 'stopping' AND ? THEN 'stopping' ELSE ? END,
		report = COALESCE(?, report), error = ?, finished_at = COALESCE(?, finished_at)
		WHERE id = ? AND `+liveRehearsal+` RETURNING status`,
			string(progress), now.UnixMilli(), status != "done" && status != "failed", status, rep, failure, finished, id), &was)
	})
	return was, err
}

// stop asks the instance running rehearsal id of race to stop it.
func (s *store) stop(ctx context.Context, raceID, id int64) error {
	_, err := s.db.Exec(ctx, `UPDATE race_rehearsals SET status = 'stopping' WHERE id = ? AND race_id = ? AND status IN ('preparing', 'running')`, id, raceID)
	return err
}

// setComment stores the director's comment on a rehearsal.
func (s *store) setComment(ctx context.Context, raceID, id int64, comment string) error {
	res, err := s.db.Exec(ctx, `UPDATE race_rehearsals SET comment = ? WHERE id = ? AND race_id = ?`, comment, id, raceID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errs.ErrNotFound
	}
	return nil
}

// abandon ends the rehearsals whose instance stopped beating before
// since (it died, or was stopped): failed, said why.
func (s *store) abandon(ctx context.Context, since, now time.Time) (int, error) {
	res, err := s.db.Exec(ctx, `UPDATE race_rehearsals SET status = 'failed', finished_at = ?,
		error = 'The instance running it stopped before it ended; its runners stopped with it.'
		WHERE `+liveRehearsal+` AND heartbeat_at < ?`, now.UnixMilli(), since.UnixMilli())
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// dueRefund is a rehearsal registration to refund: its race (the copy)
// and its id.
type dueRefund struct {
	race int64
	slug string
	reg  int64
}

// dueRefunds are up to limit confirmed registrations of rehearsal copies
// whose refund delay has passed at now, a copy's together.
func (s *store) dueRefunds(ctx context.Context, now time.Time, limit int) ([]dueRefund, error) {
	return db.All(ctx, s.db, s.db, func(rows *sql.Rows) (d dueRefund, err error) {
		return d, rows.Scan(&d.race, &d.slug, &d.reg)
	}, `SELECT c.id, c.slug, r.id FROM race_rehearsals rh
		JOIN race_races c ON c.id = rh.copy_id
		JOIN race_registrations r ON r.race_id = c.id AND r.status = 'confirmed'
		WHERE r.created_at <= ? - rh.refund_delay_s * 1000
		ORDER BY c.id, r.id LIMIT ?`, now.UnixMilli(), limit)
}

// counts are the registrations a rehearsal's copy has: made in
// all, and refunded (cancelled) of them.
func (s *store) counts(ctx context.Context, q db.Querier, copyID int64) (made, refunded int, err error) {
	err = db.Scan(q.QueryRow(ctx, `SELECT count(*), COALESCE(SUM(CASE WHEN status = 'cancelled' THEN 1 ELSE 0 END), 0)
		FROM race_registrations WHERE race_id = ?`, copyID), &made, &refunded)
	return made, refunded, err
}

// untidy reports whether any rehearsal is not cleaned up yet
// (running, refunding, or its copy or runners left): without one, the
// sweep has nothing to do for rehearsals, and writes nothing.
func (s *store) untidy(ctx context.Context) (bool, error) {
	var any bool
	err := db.Scan(s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM race_rehearsals WHERE cleaned_at IS NULL)`), &any)
	return any, err
}

// rehearsalEnded are the ended rehearsals whose end is before a time.
const rehearsalEnded = `status IN ('done', 'failed') AND finished_at <= ?`

// clean tidies up after rehearsals that ended before before: the copy of
// each whose registrations are all refunded and whose holds are all over
// goes (drop deletes it and its rows), its counts kept in the rehearsal's
// row; then, once its copy is gone, up to limit of its runners' accounts
// a call, cleaned_at set when none is left. It returns the accounts
// deleted.
func (s *store) clean(ctx context.Context, now, before time.Time, limit int, drop func(ctx context.Context, tx *db.Tx, copy int64) error) (int, error) {
	type copied struct{ id, copy int64 }
	done, err := db.All(ctx, s.db, s.db, func(rows *sql.Rows) (c copied, err error) { return c, rows.Scan(&c.id, &c.copy) },
		`SELECT rh.id, rh.copy_id FROM race_rehearsals rh WHERE rh.copy_id IS NOT NULL AND `+rehearsalEnded+`
		AND NOT EXISTS (SELECT 1 FROM race_registrations r WHERE r.race_id = rh.copy_id AND r.status = 'confirmed')
		AND NOT EXISTS (SELECT 1 FROM race_holds h WHERE h.race_id = rh.copy_id AND `+checkout.In("h.status", checkout.LiveStates...)+`)
		ORDER BY rh.id LIMIT 10`, before.UnixMilli())
	if err != nil {
		return 0, err
	}
	for _, c := range done {
		if err := s.db.WithTx(ctx, func(tx *db.Tx) error {
			made, refunded, err := s.counts(ctx, tx, c.copy)
			if err != nil {
				return err
			}
			res, err := tx.Exec(ctx, `UPDATE race_rehearsals SET made = ?, refunded = ? WHERE id = ? AND copy_id = ?`,
				made, refunded, c.id, c.copy)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return nil // another instance's sweep did it
			}
			return drop(ctx, tx, c.copy)
		}); err != nil {
			return 0, fmt.Errorf("race: removing rehearsal %d's copy: %w", c.id, err)
		}
	}
	ids, err := db.All(ctx, s.db, s.db, func(rows *sql.Rows) (id int64, err error) { return id, rows.Scan(&id) },
		`SELECT id FROM race_rehearsals WHERE copy_id IS NULL AND cleaned_at IS NULL AND `+rehearsalEnded+` ORDER BY id LIMIT 10`,
		before.UnixMilli())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		pattern := prefix(id) + "%@" + domain
		res, err := s.db.Exec(ctx, `DELETE FROM users WHERE id IN (SELECT id FROM users WHERE email_key LIKE ? LIMIT ?)`, pattern, limit-n)
		if err != nil {
			return n, fmt.Errorf("race: removing rehearsal %d's runners: %w", id, err)
		}
		k, _ := res.RowsAffected()
		n += int(k)
		if n >= limit {
			break
		}
		if _, err := s.db.Exec(ctx, `UPDATE race_rehearsals SET cleaned_at = ? WHERE id = ?`, now.UnixMilli(), id); err != nil {
			return n, err
		}
	}
	return n, nil
}
