package social

import (
	"context"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/text"
)

// Reports are an app's reports of its posts to the moderators, in its table
// (roar's: roar_reports), shaped
//
//	(id auto-numbered PRIMARY KEY, <subject> REFERENCES the app's posts ON DELETE CASCADE,
//	 reporter_id REFERENCES users(id) ON DELETE CASCADE, reason TEXT, created_at),
//	UNIQUE (<subject>, reporter_id)
//
// A user reports a post once (again: nothing changes); the moderators see
// the reported posts, most reported first, and remove the post (its
// reports go with it) or dismiss its reports. Who is a moderator is the
// app's to check.
type Reports struct {
	c      ReportsConfig
	reason text.Field
	q      struct{ file, dismiss, open string }
}

// ReportsConfig names the table and its post column; Empty is the message
// for a report without a reason ("Say what is wrong with this roar.");
// Now is the clock of created_at.
type ReportsConfig struct {
	Table, Subject string
	Empty          string
	Now            func() time.Time
}

// Report is a reported post's reports: the first one's reason and
// reporter, and how many there are.
type Report struct {
	ID        int64 // the first report's
	Subject   int64
	Count     int64
	Reason    string
	Reporter  string // the first reporter's username
	CreatedAt time.Time
}

// NewReports is the app's reports as c says.
func NewReports(c ReportsConfig) *Reports {
	r := &Reports{c: c, reason: text.Field{Name: "The reason", Min: 1, Max: 1000, Multiline: true, Empty: c.Empty}}
	t, s := db.Ident(c.Table), db.Ident(c.Subject)
	r.q.file = "INSERT INTO " + t + " (" + s + ", reporter_id, reason, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"
	r.q.dismiss = "DELETE FROM " + t + " WHERE " + s + " = ?"
	// The first report of each post is joined back whole: its reason and
	// reporter come from one row (MIN of each column would not).
	r.q.open = `SELECT rp.id, g.n, rp.reason, ru.username, rp.created_at, rp.` + s + `
		FROM (SELECT ` + s + `, MIN(id) AS first, COUNT(*) AS n FROM ` + t + ` GROUP BY ` + s + `
			ORDER BY n DESC, first ASC LIMIT ?) g
		JOIN ` + t + ` rp ON rp.id = g.first JOIN users ru ON ru.id = rp.reporter_id
		ORDER BY g.n DESC, g.first ASC`
	return r
}

// Clean checks a report's reason: 1 to 1,000 characters of text (package
// text's rules); a bad one is an Invalid error for the field "reason".
func (r *Reports) Clean(reason string) (string, error) {
	reason, msg := r.reason.Clean(reason)
	if msg != "" {
		return "", errs.Fields(map[string]string{"reason": msg})
	}
	return reason, nil
}

// File records user's report of post with reason (already Clean), once per
// user and post; filed is false if user had reported it already.
func (r *Reports) File(ctx context.Context, tx *db.Tx, post, user int64, reason string) (filed bool, err error) {
	filed, err = affected(tx.Exec(ctx, r.q.file, post, user, reason, r.c.Now().UnixMilli()))
	if err != nil {
		return false, fmt.Errorf("social: report: %w", err)
	}
	return filed, nil
}

// Dismiss closes the reports of post without removing it.
func (r *Reports) Dismiss(ctx context.Context, tx *db.Tx, post int64) error {
	if _, err := tx.Exec(ctx, r.q.dismiss, post); err != nil {
		return fmt.Errorf("social: dismiss reports: %w", err)
	}
	return nil
}

// Open returns the reported posts, most reported first (then the oldest
// report first), at most limit: one query.
func (r *Reports) Open(ctx context.Context, q db.Querier, limit int) ([]Report, error) {
	rows, err := q.Query(ctx, r.q.open, limit)
	if err != nil {
		return nil, fmt.Errorf("social: reports: %w", err)
	}
	defer rows.Close()
	var out []Report
	for rows.Next() {
		var rp Report
		var created int64
		if err := rows.Scan(&rp.ID, &rp.Count, &rp.Reason, &rp.Reporter, &created, &rp.Subject); err != nil {
			return nil, err
		}
		rp.CreatedAt = time.UnixMilli(created).UTC()
		out = append(out, rp)
	}
	return out, rows.Err()
}
