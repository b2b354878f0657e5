package meet

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Store is meet's SQL, the same statements on SQLite and PostgreSQL. Every
// write to a poll or anything in it bumps the poll's version in the same
// transaction; that version keys the caches.
type Store struct {
	db  *db.DB
	now func() time.Time
}

// NewStore is meet's store on d, its clock now.
func NewStore(d *db.DB, now func() time.Time) *Store {
	return &Store{db: d, now: now}
}

// ErrLocked is returned for changes to a poll past its deadline or closed.
var ErrLocked = errs.E(errs.Conflict, "This poll is locked: its answer deadline has passed or it has been closed.")

const pollCols = `id, admin_token, title, description, start_date, end_date, day_start, day_end, tz,
	deadline, closed_start, closed_end, version, created_at, updated_at, duration_minutes`

// pollBlanks stands in pollCols' places in a UNION's rows that are not the
// poll (PollPage, ParticipantPage): the poll is sent once, not once a row.
const pollBlanks = ", '', '', '', '', '', '', 0, 0, '', NULL, NULL, NULL, 0, 0, 0, 0"

func scanPoll(sc interface{ Scan(...any) error }) (*Poll, error) {
	var ps pollScan
	if err := sc.Scan(ps.dest()...); err != nil {
		return nil, err
	}
	return ps.poll(), nil
}

// pollScan is where a poll's columns (pollCols, in order) are scanned, and
// the Poll made of them.
type pollScan struct {
	p                Poll
	deadline, cs, ce sql.NullInt64
	created, updated int64
}

func (ps *pollScan) dest() []any {
	p := &ps.p
	return []any{&p.ID, &p.AdminToken, &p.Title, &p.Description, &p.StartDate, &p.EndDate,
		&p.DayStart, &p.DayEnd, &p.TZ, &ps.deadline, &ps.cs, &ps.ce, &p.Version, &ps.created, &ps.updated, &p.DurationMinutes}
}

func (ps *pollScan) poll() *Poll {
	p := ps.p
	p.Deadline, p.ClosedStart, p.ClosedEnd = unixPtr(ps.deadline), unixPtr(ps.cs), unixPtr(ps.ce)
	p.CreatedAt, p.UpdatedAt = time.Unix(ps.created, 0).UTC(), time.Unix(ps.updated, 0).UTC()
	return &p
}

func unixPtr(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := time.Unix(n.Int64, 0).UTC()
	return &t
}

func nullUnix(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.Unix()
}

// Poll returns the poll with id.
func (s *Store) Poll(ctx context.Context, id string) (*Poll, error) {
	p, err := scanPoll(s.db.QueryRow(ctx, `SELECT `+pollCols+` FROM meet_polls WHERE id = ?`, id))
	if err != nil {
		return nil, fmt.Errorf("meet: poll %s: %w", id, notFound(err))
	}
	return p, nil
}

// Version returns the poll's current version and deadline.
func (s *Store) Version(ctx context.Context, id string) (int64, *time.Time, error) {
	var v int64
	var deadline sql.NullInt64
	if err := db.Scan(s.db.QueryRow(ctx, `SELECT version, deadline FROM meet_polls WHERE id = ?`, id), &v, &deadline); err != nil {
		return 0, nil, fmt.Errorf("meet: version of %s: %w", id, err)
	}
	return v, unixPtr(deadline), nil
}

// PollsByID returns the polls among ids that exist, newest first.
func (s *Store) PollsByID(ctx context.Context, ids []string) ([]Poll, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := s.db.Query(ctx, `SELECT `+pollCols+` FROM meet_polls WHERE id IN (`+
		db.Params(len(ids))+`) ORDER BY created_at DESC, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("meet: polls: %w", err)
	}
	defer rows.Close()
	var out []Poll
	for rows.Next() {
		p, err := scanPoll(rows)
		if err != nil {
			return nil, fmt.Errorf("meet: polls: %w", err)
		}
		out = append(out, *p)
	}
	return out, rows.Err()
}

// CreatePoll inserts p (ID and AdminToken set by the caller).
func (s *Store) CreatePoll(ctx context.Context, p *Poll) error {
	now := s.now().UTC().Truncate(time.Second)
	p.Version, p.CreatedAt, p.UpdatedAt = 1, now, now
	p.DurationMinutes = int(p.Duration() / time.Minute)
	// In a transaction, so that a request sent twice makes one poll
	// (db.WithRequestKey).
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO meet_polls (`+pollCols+`) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
			p.ID, p.AdminToken, p.Title, p.Description, p.StartDate, p.EndDate, p.DayStart, p.DayEnd, p.TZ,
			nullUnix(p.Deadline), nullUnix(p.ClosedStart), nullUnix(p.ClosedEnd), p.Version, now.Unix(), now.Unix(),
			p.DurationMinutes)
		return err
	})
	if err != nil {
		return fmt.Errorf("meet: create poll: %w", err)
	}
	return nil
}

// ErrEditLoses is returned by UpdatePoll when the edit would take answers
// away and the organizer has not confirmed exactly that loss.
var ErrEditLoses = errs.E(errs.Conflict, "This change removes answers that no longer fit the poll; confirm to save it.")

// UpdatePoll saves the organizer's edit of p's settings in one transaction.
// Answers keep their instants: each timeframe is clipped to the new slots
// (ClipTimeframes), what still fits is kept. If anything would be lost and
// confirm is not LossToken of exactly that loss, nothing is written and the
// error is ErrEditLoses, with the lost stretches returned for the organizer
// to confirm.
func (s *Store) UpdatePoll(ctx context.Context, p *Poll, confirm string) (int64, []Timeframe, error) {
	var v int64
	var lost []Timeframe
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		// The UPDATE comes first: it locks the poll's row, so that no answer
		// arrives between the clipping and the commit.
		err := db.Scan(tx.QueryRow(ctx, `UPDATE meet_polls SET title = ?, description = ?, start_date = ?, end_date = ?,
			day_start = ?, day_end = ?, tz = ?, deadline = ?, duration_minutes = ?, version = version + 1, updated_at = ?
			WHERE id = ? RETURNING version`,
			p.Title, p.Description, p.StartDate, p.EndDate, p.DayStart, p.DayEnd, p.TZ, nullUnix(p.Deadline),
			int(p.Duration()/time.Minute), s.now().Unix(), p.ID), &v)
		if err != nil {
			return notFound(err)
		}
		tfs, err := txTimeframes(ctx, tx, p.ID)
		if err != nil {
			return err
		}
		var kept []Timeframe
		var changed []int64
		kept, lost, changed = ClipTimeframes(p.Slots(), tfs)
		if len(lost) > 0 && confirm != LossToken(lost) {
			return ErrEditLoses
		}
		for start := 0; start < len(changed); start += 500 {
			chunk := changed[start:min(start+500, len(changed))]
			args := make([]any, len(chunk))
			for i, id := range chunk {
				args[i] = id
			}
			if _, err := tx.Exec(ctx, `DELETE FROM meet_timeframes WHERE id IN (`+
				db.Params(len(chunk))+`)`, args...); err != nil {
				return err
			}
		}
		const per = 200
		for start := 0; start < len(kept); start += per {
			chunk := kept[start:min(start+per, len(kept))]
			args := make([]any, 0, 5*len(chunk))
			for _, t := range chunk {
				args = append(args, p.ID, t.ParticipantID, t.Start.Unix(), t.End.Unix(), t.Tier)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO meet_timeframes (poll_id, participant_id, start_at, end_at, tier) VALUES `+
				db.Values(len(chunk), 5), args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, lost, fmt.Errorf("meet: update poll: %w", err)
	}
	p.Version = v
	return v, lost, nil
}

// txTimeframes reads every timeframe of a poll inside tx.
func txTimeframes(ctx context.Context, tx *db.Tx, pollID string) ([]Timeframe, error) {
	rows, err := tx.Query(ctx, `SELECT id, participant_id, start_at, end_at, tier FROM meet_timeframes
		WHERE poll_id = ? ORDER BY participant_id, start_at, id`, pollID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Timeframe
	for rows.Next() {
		var t Timeframe
		var a, b int64
		if err := rows.Scan(&t.ID, &t.ParticipantID, &a, &b, &t.Tier); err != nil {
			return nil, err
		}
		t.Start, t.End = time.Unix(a, 0).UTC(), time.Unix(b, 0).UTC()
		out = append(out, t)
	}
	return out, rows.Err()
}

// DeletePoll removes the poll and everything in it.
func (s *Store) DeletePoll(ctx context.Context, id string) error {
	res, err := s.db.Exec(ctx, `DELETE FROM meet_polls WHERE id = ?`, id)
	if err != nil {
		return fmt.Errorf("meet: delete poll: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("meet: delete poll %s: %w", id, errs.ErrNotFound)
	}
	return nil
}

// ClosePoll records the chosen time (start, end nil reopens the poll).
func (s *Store) ClosePoll(ctx context.Context, id string, start, end *time.Time) (int64, error) {
	var v int64
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		return db.Scan(tx.QueryRow(ctx, `UPDATE meet_polls SET closed_start = ?, closed_end = ?, version = version + 1,
			updated_at = ? WHERE id = ? RETURNING version`, nullUnix(start), nullUnix(end), s.now().Unix(), id), &v)
	})
	if err != nil {
		return 0, fmt.Errorf("meet: close poll: %w", err)
	}
	return v, nil
}

// change runs fn in a write transaction after bumping the poll's version
// (refusing if the poll is locked) and returns the new version. The
// transaction is the core's group commit (db.Batch): under load the
// answers of many people share one BEGIN, request-key claim and COMMIT; fn
// may run again if another write of its batch fails, so it sets what
// it captures rather than adding to it.
func (s *Store) change(ctx context.Context, pollID, what string, fn func(ctx context.Context, tx *db.Tx) error) (int64, error) {
	v, _, err := s.changeUntil(ctx, pollID, what, fn)
	return v, err
}

// changeUntil is change that also returns the poll's deadline as its bump
// read it, for a writer that did not read the poll before.
func (s *Store) changeUntil(ctx context.Context, pollID, what string, fn func(ctx context.Context, tx *db.Tx) error) (int64, *time.Time, error) {
	var v int64
	var deadline *time.Time
	err := s.db.Batch().Do(ctx, func(ctx context.Context, tx *db.Tx) error {
		var err error
		if v, deadline, err = s.touch(ctx, tx, pollID); err != nil {
			return err
		}
		return fn(ctx, tx)
	})
	if err != nil {
		return 0, nil, fmt.Errorf("meet: %s: %w", what, err)
	}
	return v, deadline, nil
}

// deleteOne runs a DELETE that must remove exactly one row.
func deleteOne(ctx context.Context, tx *db.Tx, q string, args ...any) error {
	res, err := tx.Exec(ctx, q, args...)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errs.ErrNotFound
	}
	return nil
}

// touch bumps the poll's version inside tx and refuses if the poll is
// locked; it returns the new version and the poll's deadline. No such poll
// is ErrNotFound.
func (s *Store) touch(ctx context.Context, tx *db.Tx, pollID string) (int64, *time.Time, error) {
	var v int64
	var deadline, closed sql.NullInt64
	now := s.now()
	err := db.Scan(tx.QueryRow(ctx, `UPDATE meet_polls SET version = version + 1, updated_at = ? WHERE id = ?
		RETURNING version, deadline, closed_start`, now.Unix(), pollID), &v, &deadline, &closed)
	if err != nil {
		return 0, nil, err
	}
	if closed.Valid || (deadline.Valid && now.Unix() >= deadline.Int64) {
		return 0, nil, ErrLocked
	}
	return v, unixPtr(deadline), nil
}

func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return errs.ErrNotFound
	}
	return err
}
