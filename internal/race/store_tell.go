package race

import (
	"context"
	"database/sql"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
)

// The SQL behind telling runners (service_tell.go): who an event's
// runners are, what its notices name, and a change's "before".

// EventAbout is what a notice or a mail about an event names.
type EventAbout struct {
	RaceID                int64
	Race, Slug, Event, TZ string
	Currency              checkout.Currency
	StartsAt              time.Time
}

// EventsAbout is what notices name of events ids (repeats allowed), read
// in q (a transaction, or the database).
func (s *Store) EventsAbout(ctx context.Context, q db.Querier, ids []int64) (map[int64]EventAbout, error) {
	seen := map[int64]bool{}
	var args []any
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			args = append(args, id)
		}
	}
	out := make(map[int64]EventAbout, len(args))
	if len(args) == 0 {
		return out, nil
	}
	_, err := db.All(ctx, s.db, q, func(rows *sql.Rows) (x EventAbout, err error) {
		var id, starts int64
		err = rows.Scan(&id, &x.RaceID, &x.Race, &x.Slug, &x.Event, &x.TZ, &x.Currency, &starts)
		x.StartsAt = ms(starts)
		out[id] = x
		return x, err
	}, `SELECT e.id, r.id, r.name, r.slug, e.name, r.tz, r.currency, e.starts_at FROM race_events e
		JOIN race_races r ON r.id = e.race_id WHERE e.id IN (`+db.Params(len(args))+`)`, args...)
	return out, err
}

// ActiveRegistrants are up to limit confirmed registrations of event after
// registration id after, in id order (a keyset page: the index
// race_registrations_event), each with what a letter needs: its id, user,
// first name and e-mail.
func (s *Store) ActiveRegistrants(ctx context.Context, tx *db.Tx, eventID, after int64, limit int) ([]Registration, error) {
	return db.All(ctx, s.db, tx, func(rows *sql.Rows) (r Registration, err error) {
		r.EventID = eventID
		return r, rows.Scan(&r.ID, &r.UserID, &r.FirstName, &r.Email)
	}, `SELECT id, user_id, first_name, email FROM race_registrations
		WHERE event_id = ? AND id > ? AND status = 'confirmed' ORDER BY id LIMIT ?`, eventID, after, limit)
}

// forUpdate ends a read in a transaction that is about to change what it
// read (not a key): on PostgreSQL the rows stay locked until the commit,
// so that two directors saving at once are told of in turn ("before" is
// the other's "after"), while rows that refer to them are still written
// (NO KEY: their foreign keys' checks do not wait); SQLite's write
// transaction holds the whole database already.
func forUpdate(tx *db.Tx) string {
	if tx.Dialect() == db.Postgres {
		return " FOR NO KEY UPDATE"
	}
	return ""
}

// LockedStart is when event id of race raceID starts, read in tx before
// it changes (forUpdate).
func (s *Store) LockedStart(ctx context.Context, tx *db.Tx, raceID, id int64) (time.Time, error) {
	var at int64
	err := db.Scan(tx.QueryRow(ctx, `SELECT starts_at FROM race_events WHERE id = ? AND race_id = ?`+forUpdate(tx), id, raceID), &at)
	return ms(at), err
}

// LockedLocation is where race id takes place, read in tx before it
// changes (forUpdate).
func (s *Store) LockedLocation(ctx context.Context, tx *db.Tx, id int64) (string, error) {
	var where string
	err := db.Scan(tx.QueryRow(ctx, `SELECT location FROM race_races WHERE id = ?`+forUpdate(tx), id), &where)
	return where, err
}

// Message is a directors' message to the registrants of an event, stored
// once (its notices point to it; its mails are written out when sent).
type Message struct {
	ID, RaceID, EventID, UserID int64
	Subject                     string // as runners read it, after the race's and event's names
	Body                        string // after the greeting, the directors' words and who they are from
	Base                        string // the origin of the director's request: the mails' links
	Sent                        int    // how many runners it went to
	CreatedAt                   time.Time
}

// AddMessage stores m, written at at, and sets its ID.
func (s *Store) AddMessage(ctx context.Context, tx *db.Tx, m *Message, at time.Time) error {
	m.CreatedAt = at
	return db.Scan(tx.QueryRow(ctx, `INSERT INTO race_messages (race_id, event_id, user_id, subject, body, base, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id`, m.RaceID, m.EventID, m.UserID, m.Subject, m.Body, m.Base, at.UnixMilli()), &m.ID)
}

// SetMessageSent records that message id went to n runners.
func (s *Store) SetMessageSent(ctx context.Context, tx *db.Tx, id int64, n int) error {
	_, err := tx.Exec(ctx, `UPDATE race_messages SET sent = ? WHERE id = ?`, n, id)
	return err
}

// Messages are the last limit messages sent to event's registrants, the
// newest first.
func (s *Store) Messages(ctx context.Context, eventID int64, limit int) ([]Message, error) {
	return db.All(ctx, s.db, s.db, func(rows *sql.Rows) (m Message, err error) {
		var at int64
		err = rows.Scan(&m.ID, &m.RaceID, &m.EventID, &m.Subject, &m.Sent, &at)
		m.CreatedAt = ms(at)
		return m, err
	}, `SELECT id, race_id, event_id, subject, sent, created_at FROM race_messages WHERE event_id = ? ORDER BY id DESC LIMIT ?`, eventID, limit)
}

// MessageTo is message id, its race's slug, and registration reg (its
// first name and e-mail), for the mail to reg's runner. Not found: the
// message, or the registration (with its runner's account), is gone.
func (s *Store) MessageTo(ctx context.Context, id, reg int64) (m Message, slug string, r Registration, err error) {
	err = db.Scan(s.db.QueryRow(ctx, `SELECT m.subject, m.body, m.base, r.slug, g.first_name, g.email
		FROM race_messages m JOIN race_races r ON r.id = m.race_id JOIN race_registrations g ON g.id = ? AND g.event_id = m.event_id
		WHERE m.id = ?`, reg, id), &m.Subject, &m.Body, &m.Base, &slug, &r.FirstName, &r.Email)
	return m, slug, r, err
}
