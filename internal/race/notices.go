package race

import (
	"context"
	"database/sql"
	"strings"
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
	// Link is what to do next, a path on the site ("" for nothing), shown
	// as a link labelled LinkText.
	Link, LinkText string
	// MessageID is the directors' message the notice is (its Body read
	// from it); 0 for none.
	MessageID int64
	CreatedAt time.Time
	RaceName  string // read where shown
	When      string // CreatedAt on the race's wall clock (walltime.Clock)
}

// mineURL is the runner's registrations page, where notices show.
const mineURL = "/race/mine"

// letter is a notice and where its mail goes: the address, and the origin
// its links start with (base: the origin the flow began on, "" for the
// request's or the site's: mail.Mailer.Base).
type letter struct {
	Notice
	To, Base string
}

// noticeRows is how many notices, and their mails, one statement writes.
const noticeRows = 500

// notify stores n and mails it to address to (see letter for base); the
// outbox's workers are woken after the commit.
func (s *Service) notify(ctx context.Context, tx *db.Tx, n Notice, to, base string) error {
	return s.tell(ctx, tx, 1, func(int) letter { return letter{n, to, base} })
}

// tell stores count notices, at(i) the i-th, and mails each to its
// runner, in tx (letters); the outbox's workers are woken after the
// commit.
func (s *Service) tell(ctx context.Context, tx *db.Tx, count int, at func(i int) letter) error {
	if count == 0 {
		return nil
	}
	tx.AfterCommit(s.mailed)
	return s.letters(ctx, tx, count, at)
}

// letters is tell without the wake-up: two statements per noticeRows
// letters (however many an event's runners are), with only that many in
// memory at once.
func (s *Service) letters(ctx context.Context, tx *db.Tx, count int, at func(i int) letter) error {
	now := s.now()
	ns := make([]Notice, 0, min(count, noticeRows))
	msgs := make([]mail.Message, 0, cap(ns))
	for start := 0; start < count; start += noticeRows {
		ns, msgs = ns[:0], msgs[:0]
		for i := start; i < min(count, start+noticeRows); i++ {
			l := at(i)
			ns = append(ns, l.Notice)
			if s.mail != nil {
				msgs = append(msgs, s.letterMail(ctx, l))
			}
		}
		if err := s.store.AddNotices(ctx, tx, ns, now); err != nil {
			return err
		}
		if s.mail != nil {
			if err := s.mail.EnqueueMany(ctx, tx, msgs); err != nil {
				return err
			}
		}
	}
	return nil
}

// letterMail is l as a mail: the notice, its link and the runner's
// registrations page, both absolute.
func (s *Service) letterMail(ctx context.Context, l letter) mail.Message {
	var b strings.Builder
	b.WriteString(l.Body)
	if l.Link != "" {
		b.WriteString("\n\n" + l.LinkText + ": " + s.mail.Link(ctx, l.Base, l.Link))
	}
	b.WriteString("\n\nYour registrations: " + s.mail.Link(ctx, l.Base, mineURL) + "\n")
	return mail.Message{To: l.To, Subject: l.Subject, Text: b.String()}
}

// mailed wakes the outbox's workers after a commit that notified.
func (s *Service) mailed() {
	if s.mail != nil {
		s.mail.Notify()
	}
}

// AddNotices stores ns, told at at, in one statement.
func (s *Store) AddNotices(ctx context.Context, tx *db.Tx, ns []Notice, at time.Time) error {
	if len(ns) == 0 {
		return nil
	}
	nullable := func(v int64) sql.NullInt64 { return sql.NullInt64{Int64: v, Valid: v != 0} }
	args := make([]any, 0, 10*len(ns))
	for _, n := range ns {
		args = append(args, n.UserID, n.RaceID, nullable(n.EventID), nullable(n.RegistrationID), n.Subject, n.Body, n.Link, n.LinkText,
			nullable(n.MessageID), at.UnixMilli())
	}
	_, err := tx.Exec(ctx, `INSERT INTO race_notices (user_id, race_id, event_id, registration_id, subject, body, link, link_text, message_id,
		created_at) VALUES `+db.Values(len(ns), 10), args...)
	return err
}

// Notices is user's notices, newest first (the last 200).
func (s *Store) Notices(ctx context.Context, userID int64) ([]Notice, error) {
	return db.All(ctx, s.db, s.db, func(rows *sql.Rows) (n Notice, err error) {
		var ev, reg, msg sql.NullInt64
		var at int64
		var tz string
		err = rows.Scan(&n.ID, &n.UserID, &n.RaceID, &ev, &reg, &n.Subject, &n.Body, &n.Link, &n.LinkText, &msg, &at, &n.RaceName, &tz)
		n.EventID, n.RegistrationID, n.MessageID, n.CreatedAt = ev.Int64, reg.Int64, msg.Int64, ms(at)
		loc, lerr := walltime.Location(tz)
		if lerr != nil {
			loc = time.UTC
		}
		n.When = walltime.Clock(n.CreatedAt, loc, "2 Jan 2006, 15:04 MST")
		return n, err
	}, `SELECT n.id, n.user_id, n.race_id, n.event_id, n.registration_id, n.subject, coalesce(m.body, n.body), n.link, n.link_text,
			n.message_id, n.created_at, r.name, r.tz
		FROM race_notices n JOIN race_races r ON r.id = n.race_id LEFT JOIN race_messages m ON m.id = n.message_id
		WHERE n.user_id = ? ORDER BY n.id DESC LIMIT 200`, userID)
}
