package race

import (
	"context"
	"database/sql"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/mail"
	"github.com/tutti-dev/tutti/internal/walltime"
)

// Every change that touches a runner reaches them twice: a notice kept on
// their registrations page (/race/mine) and a mail from the outbox, both
// written in the transaction of the change (a rolled-back change tells
// nobody; a committed one is told even if the process dies).

// Notice is what a runner was told.
type Notice struct {
	ID             int64
	UserID         int64
	RaceID         int64
	EventID        int64 // 0: about the race
	RegistrationID int64 // 0: about no registration
	Subject, Body  string
	CreatedAt      time.Time
	RaceName       string // read where shown
	When           string // CreatedAt on the race's wall clock (walltime.Clock)
}

// mineURL is the runner's registrations page, where notices show.
const mineURL = "/race/mine"

// notify stores n and mails it to address to, with a link to the
// runner's registrations page (base: the origin the flow began on, "" for
// the request's or the site's: mail.Mailer.Base); the caller calls
// s.mailed after the commit.
func (s *Service) notify(ctx context.Context, tx *db.Tx, n Notice, to, base string) error {
	if err := s.store.AddNotice(ctx, tx, n, s.now()); err != nil {
		return err
	}
	if s.mail == nil {
		return nil
	}
	return s.mail.Enqueue(ctx, tx, mail.Message{To: to, Subject: n.Subject,
		Text: n.Body + "\n\nYour registrations: " + s.mail.Link(ctx, base, mineURL) + "\n"})
}

// mailed wakes the outbox's workers after a commit that notified.
func (s *Service) mailed() {
	if s.mail != nil {
		s.mail.Notify()
	}
}

// AddNotice stores n, told at at.
func (s *Store) AddNotice(ctx context.Context, tx *db.Tx, n Notice, at time.Time) error {
	nullable := func(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: v != 0} }
	_, err := tx.Exec(ctx, `INSERT INTO race_notices (user_id, race_id, event_id, registration_id, subject, body, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)`, n.UserID, n.RaceID, nullable(n.EventID), nullable(n.RegistrationID), n.Subject, n.Body,
		at.UnixMilli())
	return err
}

// Notices is user's notices, newest first (the last 200).
func (s *Store) Notices(ctx context.Context, userID int64) ([]Notice, error) {
	return db.All(ctx, s.db, s.db, func(rows *sql.Rows) (n Notice, err error) {
		var ev, reg sql.NullInt64
		var at int64
		var tz string
		err = rows.Scan(&n.ID, &n.UserID, &n.RaceID, &ev, &reg, &n.Subject, &n.Body, &at, &n.RaceName, &tz)
		n.EventID, n.RegistrationID, n.CreatedAt = ev.Int64, reg.Int64, ms(at)
		loc, lerr := walltime.Location(tz)
		if lerr != nil {
			loc = time.UTC
		}
		n.When = walltime.Clock(n.CreatedAt, loc, "2 Jan 2006, 15:04 MST")
		return n, err
	}, `SELECT n.id, n.user_id, n.race_id, n.event_id, n.registration_id, n.subject, n.body, n.created_at, r.name, r.tz
		FROM race_notices n JOIN race_races r ON r.id = n.race_id
		WHERE n.user_id = ? ORDER BY n.id DESC LIMIT 200`, userID)
}
