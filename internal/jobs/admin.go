package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Counts are the jobs in each state.
type Counts struct{ Ready, Running, Dead int }

// Counts counts the jobs by state.
func (q *Queue) Counts(ctx context.Context) (Counts, error) {
	var c Counts
	rows, err := q.db.Query(ctx, "SELECT state, COUNT(*) FROM jobs GROUP BY state")
	if err != nil {
		return c, fmt.Errorf("jobs: counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return c, fmt.Errorf("jobs: counts: %w", err)
		}
		switch s {
		case Ready:
			c.Ready = n
		case Running:
			c.Running = n
		case Dead:
			c.Dead = n
		}
	}
	return c, rows.Err()
}

// List returns up to limit jobs in state ("" for every state), newest first.
func (q *Queue) List(ctx context.Context, state string, limit int) ([]Job, error) {
	where, args := "", []any{}
	if state != "" {
		where, args = "WHERE state = ? ", append(args, state)
	}
	rows, err := q.db.Query(ctx, `SELECT id, kind, payload, state, attempts, max_attempts, run_at, last_error, request_id, created_at
		FROM jobs `+where+`ORDER BY id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("jobs: list: %w", err)
	}
	defer rows.Close()
	var out []Job
	for rows.Next() {
		var j Job
		var runAt, created int64
		if err := rows.Scan(&j.ID, &j.Kind, &j.Payload, &j.State, &j.Attempts, &j.MaxAttempts, &runAt, &j.LastError, &j.RequestID, &created); err != nil {
			return nil, fmt.Errorf("jobs: list: %w", err)
		}
		j.RunAt, j.CreatedAt = time.UnixMilli(runAt), time.UnixMilli(created)
		out = append(out, j)
	}
	return out, rows.Err()
}

// Retry puts a dead job back to ready with its attempts reset, and wakes the
// workers. errs.ErrNotFound if no dead job has that id.
func (q *Queue) Retry(ctx context.Context, id int64) error {
	now := ms(q.o.Now())
	var n int64
	err := q.db.WithTx(ctx, func(tx *db.Tx) error {
		res, err := tx.Exec(ctx, `UPDATE jobs SET state = 'ready', attempts = 0, run_at = ?, locked_until = 0, updated_at = ?
			WHERE id = ? AND state = 'dead'`, now, now, id)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return fmt.Errorf("jobs: retry %d: %w", id, err)
	}
	if n == 0 {
		return errs.ErrNotFound
	}
	q.Notify()
	return nil
}
