package race

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/tutti-dev/tutti/internal/cache"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Store is race's SQL, the same statements on SQLite and PostgreSQL (the
// differences are marked where they are). Times are unix milliseconds.
type Store struct {
	db *db.DB
	// holds keeps the holds read in memory in embedded mode (nil: none):
	// every page of a runner's wizard reads theirs. Each statement that
	// changes a hold drops it after its commit (holdsChanged).
	holds *cache.Memo[string, Hold]
}

// holdsFor is how long a hold stays in memory at most: longer than a
// runner's think between two pages (the seed's 15-60 s).
const holdsFor = 5 * time.Minute

// keepHolds has the store keep the holds it reads in memory: for embedded
// mode, where this process makes every write of them (another process's
// show within a look of db.OnOthers, which calls forgetHolds).
func (s *Store) keepHolds() { s.holds = cache.NewMemo[string, Hold](100_000, holdsFor) }

// forgetHolds drops every hold kept in memory.
func (s *Store) forgetHolds() { s.holds.ForgetAll() }

// holdsChanged drops holds ids from memory once tx commits: every
// statement that changes a hold's row calls it (or allHoldsChanged).
func (s *Store) holdsChanged(tx *db.Tx, ids ...string) {
	if s.holds == nil || len(ids) == 0 {
		return
	}
	tx.AfterCommit(func() {
		for _, id := range ids {
			s.holds.Forget(id)
		}
	})
}

// allHoldsChanged drops every hold from memory once tx commits: for a
// statement that changes holds it cannot name (a deletion's cascade).
func (s *Store) allHoldsChanged(tx *db.Tx) {
	if s.holds != nil {
		tx.AfterCommit(s.holds.ForgetAll)
	}
}

// NewStore is race's store on d.
func NewStore(d *db.DB) *Store { return &Store{db: d} }

const raceCols = `id, slug, owner_id, name, location, race_date, tz, description, info, waiver, logo, currency, published_at, version,
	teams, fundraiser, EXISTS (SELECT 1 FROM race_codes c WHERE c.race_id = race_races.id AND c.early), COALESCE(rehearsal_of, 0),
	edit_until, refund_percent, refund_until, shirts`

func scanRace(sc interface{ Scan(...any) error }) (*Race, error) {
	var r Race
	var pub, editUntil, refundUntil sql.NullInt64
	if err := sc.Scan(&r.ID, &r.Slug, &r.OwnerID, &r.Name, &r.Location, &r.Date, &r.TZ, &r.Description, &r.Info,
		&r.Waiver, &r.Logo, &r.Currency, &pub, &r.Version, &r.Teams, &r.Fundraiser, &r.EarlyCodes, &r.RehearsalOf,
		&editUntil, &r.Refund.Percent, &refundUntil, &r.Shirts); err != nil {
		return nil, err
	}
	r.PublishedAt, r.EditUntil, r.Refund.Until = msPtr(pub), msPtr(editUntil), msPtr(refundUntil)
	return &r, nil
}

const eventCols = `id, race_id, name, starts_at, opens_at, closes_at, price, cap, taken, confirmed, results_count, results_published_at,
	waiting, lottery, draw_at, drawn_at, closed_at`

func scanEvent(sc interface{ Scan(...any) error }) (Event, error) {
	var e Event
	var starts, opens, closes int64
	var results, drawAt, drawnAt, closedAt sql.NullInt64
	err := sc.Scan(&e.ID, &e.RaceID, &e.Name, &starts, &opens, &closes, &e.Price, &e.Cap, &e.Taken, &e.Confirmed,
		&e.ResultsCount, &results, &e.Waiting, &e.Lottery, &drawAt, &drawnAt, &closedAt)
	e.StartsAt, e.OpensAt, e.ClosesAt = ms(starts), ms(opens), ms(closes)
	e.ResultsPublishedAt, e.DrawAt, e.DrawnAt, e.ClosedAt = msPtr(results), msPtr(drawAt), msPtr(drawnAt), msPtr(closedAt)
	return e, err
}

func ms(n int64) time.Time { return time.UnixMilli(n).UTC() }

// msOrNil is t in unix milliseconds, or NULL.
func msOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.UnixMilli()
}

func msPtr(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := ms(n.Int64)
	return &t
}

// CreateRace stores a draft race owned by its OwnerID, who becomes its
// first director, under a free slug made from its name; it sets r.ID and
// r.Slug.
func (s *Store) CreateRace(ctx context.Context, r *Race, suffix func() string, now time.Time) error {
	base := Slugify(r.Name)
	for attempt := 0; attempt < 5; attempt++ {
		slug := base
		if attempt > 0 {
			slug = base + "-" + suffix()
		}
		err := s.db.WithTx(ctx, func(tx *db.Tx) error {
			err := db.Scan(tx.QueryRow(ctx, `INSERT INTO race_races (slug, owner_id, name, location, race_date, tz, description, currency, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
				slug, r.OwnerID, r.Name, r.Location, r.Date, r.TZ, r.Description, r.Currency, now.UnixMilli(), now.UnixMilli()), &r.ID)
			if err != nil {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO race_directors (race_id, user_id, created_at) VALUES (?, ?, ?)`, r.ID, r.OwnerID, now.UnixMilli())
			return err
		})
		if errors.Is(err, errs.ErrConflict) {
			continue // the slug is taken: another
		}
		if err != nil {
			return fmt.Errorf("race: create: %w", err)
		}
		r.Slug, r.Version = slug, 1
		return nil
	}
	return errs.E(errs.Conflict, "Could not find a free web address for this race; try another name.")
}

// RaceBySlug is the race and its events, in start order.
func (s *Store) RaceBySlug(ctx context.Context, q db.Querier, slug string) (*Race, error) {
	r, err := scanRace(q.QueryRow(ctx, `SELECT `+raceCols+` FROM race_races WHERE slug = ?`, slug))
	if err != nil {
		return nil, fmt.Errorf("race %s: %w", slug, db.Translate(err))
	}
	if r.Events, err = s.events(ctx, q, r.ID); err != nil {
		return nil, err
	}
	if r.Items, err = s.items(ctx, q, r.ID); err != nil {
		return nil, err
	}
	return r, nil
}

func (s *Store) events(ctx context.Context, q db.Querier, raceID int64) ([]Event, error) {
	rows, err := q.Query(ctx, `SELECT `+eventCols+` FROM race_events WHERE race_id = ? ORDER BY starts_at, id`, raceID)
	if err != nil {
		return nil, fmt.Errorf("race: events: %w", err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		e, err := scanEvent(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// Event is one event with its race's id.
func (s *Store) Event(ctx context.Context, id int64) (Event, error) {
	e, err := scanEvent(s.db.QueryRow(ctx, `SELECT `+eventCols+` FROM race_events WHERE id = ?`, id))
	if err != nil {
		return Event{}, fmt.Errorf("race event %d: %w", id, db.Translate(err))
	}
	return e, nil
}

// Version is race slug's cache stamp.
func (s *Store) Version(ctx context.Context, slug string) (int64, error) {
	var v int64
	if err := db.Scan(s.db.QueryRow(ctx, `SELECT version FROM race_races WHERE slug = ?`, slug), &v); err != nil {
		return 0, fmt.Errorf("race %s: %w", slug, err)
	}
	return v, nil
}

// IsDirector reports whether user directs race.
func (s *Store) IsDirector(ctx context.Context, raceID, userID int64) (bool, error) {
	var n int
	err := db.Scan(s.db.QueryRow(ctx, `SELECT 1 FROM race_directors WHERE race_id = ? AND user_id = ?`, raceID, userID), &n)
	if errors.Is(err, errs.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Directors are the usernames of race's directors, the owner first.
func (s *Store) Directors(ctx context.Context, raceID int64) ([]string, error) {
	rows, err := s.db.Query(ctx, `SELECT u.username FROM race_directors d JOIN users u ON u.id = d.user_id
		WHERE d.race_id = ? ORDER BY d.created_at, u.id`, raceID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// AddDirector makes user a director of race (nothing if they are one).
func (s *Store) AddDirector(ctx context.Context, tx *db.Tx, raceID, userID int64, now time.Time) error {
	_, err := tx.Exec(ctx, `INSERT INTO race_directors (race_id, user_id, created_at) VALUES (?, ?, ?)
		ON CONFLICT (race_id, user_id) DO NOTHING`, raceID, userID, now.UnixMilli())
	return err
}

// bump raises race's version in tx.
func (s *Store) bump(ctx context.Context, tx *db.Tx, raceID int64, now time.Time) (int64, error) {
	var v int64
	err := db.Scan(tx.QueryRow(ctx, `UPDATE race_races SET version = version + 1, updated_at = ? WHERE id = ? RETURNING version`,
		now.UnixMilli(), raceID), &v)
	return v, err
}

// UpdateBasics stores the basics form.
func (s *Store) UpdateBasics(ctx context.Context, tx *db.Tx, id int64, r Race) error {
	_, err := tx.Exec(ctx, `UPDATE race_races SET name = ?, location = ?, race_date = ?, tz = ?, description = ?, currency = ? WHERE id = ?`,
		r.Name, r.Location, r.Date, r.TZ, r.Description, r.Currency, id)
	return err
}

// UpdateText stores the text and waiver.
func (s *Store) UpdateText(ctx context.Context, tx *db.Tx, id int64, info, waiver string) error {
	_, err := tx.Exec(ctx, `UPDATE race_races SET info = ?, waiver = ? WHERE id = ?`, info, waiver, id)
	return err
}

// Publish makes the race visible (once).
func (s *Store) Publish(ctx context.Context, tx *db.Tx, id int64, now time.Time) error {
	_, err := tx.Exec(ctx, `UPDATE race_races SET published_at = ? WHERE id = ? AND published_at IS NULL`, now.UnixMilli(), id)
	return err
}

// AddEvent stores a new event of race e.RaceID; it sets e.ID.
func (s *Store) AddEvent(ctx context.Context, tx *db.Tx, e *Event, now time.Time) error {
	var n int
	if err := db.Scan(tx.QueryRow(ctx, `SELECT count(*) FROM race_events WHERE race_id = ?`, e.RaceID), &n); err != nil {
		return err
	}
	if n >= MaxEvents {
		return errs.E(errs.Conflict, "A race has at most %d events.", MaxEvents)
	}
	return db.Scan(tx.QueryRow(ctx, `INSERT INTO race_events (race_id, name, starts_at, opens_at, closes_at, price, cap, lottery, draw_at, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		e.RaceID, e.Name, e.StartsAt.UnixMilli(), e.OpensAt.UnixMilli(), e.ClosesAt.UnixMilli(), e.Price, e.Cap, e.Lottery, msOrNil(e.DrawAt),
		now.UnixMilli()), &e.ID)
}

// UpdateEvent stores an event's form. The cap may not fall below the
// places taken: that is checked in the same statement, so a registration
// committed meanwhile counts.
func (s *Store) UpdateEvent(ctx context.Context, tx *db.Tx, e Event) error {
	// A drawn lottery stays drawn: its mode and draw time no longer change.
	res, err := tx.Exec(ctx, `UPDATE race_events SET name = ?, starts_at = ?, opens_at = ?, closes_at = ?, price = ?, cap = ?,
		lottery = CASE WHEN drawn_at IS NULL THEN ? ELSE lottery END, draw_at = CASE WHEN drawn_at IS NULL THEN ? ELSE draw_at END
		WHERE id = ? AND race_id = ? AND taken <= ?`,
		e.Name, e.StartsAt.UnixMilli(), e.OpensAt.UnixMilli(), e.ClosesAt.UnixMilli(), e.Price, e.Cap, e.Lottery, msOrNil(e.DrawAt),
		e.ID, e.RaceID, e.Cap)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		cur, err := scanEvent(tx.QueryRow(ctx, `SELECT `+eventCols+` FROM race_events WHERE id = ? AND race_id = ?`, e.ID, e.RaceID))
		if err != nil {
			return db.Translate(err)
		}
		return &errs.Error{Kind: errs.Invalid, Message: "Check the places.",
			Fields: map[string]string{"cap": fmt.Sprintf("%d places are taken or held already: the cap cannot be lower.", cur.Taken)}}
	}
	// A discount is a percent of the price: the holds not yet paying
	// that carry a code get theirs again at the new price (discountOf's
	// rounding: integer division, prices and percents are positive).
	rows, err := tx.Query(ctx, `UPDATE race_holds SET discount = ? * (SELECT c.percent FROM race_codes c WHERE c.id = race_holds.code_id) / 100
		WHERE event_id = ? AND code_id IS NOT NULL AND `+isHeld+` RETURNING id`, e.Price, e.ID)
	if err != nil {
		return err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return err
		}
		ids = append(ids, id)
	}
	s.holdsChanged(tx, ids...)
	return rows.Err()
}

// DeleteEvent deletes an event nobody has registered for or holds.
func (s *Store) DeleteEvent(ctx context.Context, tx *db.Tx, raceID, eventID int64) error {
	res, err := tx.Exec(ctx, `DELETE FROM race_events WHERE id = ? AND race_id = ? AND taken = 0
		AND NOT EXISTS (SELECT 1 FROM race_registrations WHERE event_id = ?)`, eventID, raceID, eventID)
	s.allHoldsChanged(tx) // its released holds go with it
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return notDeleted(ctx, tx, "race_events", "event", raceID, eventID,
			errs.E(errs.Conflict, "This event has registrations: cancel them first, or keep the event."))
	}
	return nil
}

// notDeleted is why a conditional DELETE of row id of race raceID in table
// removed nothing: NotFound if the race has no such row (another race's,
// or gone already), else refused.
func notDeleted(ctx context.Context, tx *db.Tx, table, what string, raceID, id int64, refused error) error {
	var one int
	err := db.Scan(tx.QueryRow(ctx, `SELECT 1 FROM `+table+` WHERE id = ? AND race_id = ?`, id, raceID), &one)
	switch {
	case errors.Is(err, errs.ErrNotFound):
		return errs.E(errs.NotFound, "This race has no such %s; it may have been deleted already.", what)
	case err != nil:
		return err
	}
	return refused
}

// RaceRow is a race in a list.
type RaceRow struct {
	Slug, Name, Location, Date string
	Published                  bool
	Events, Left               int
}

// Upcoming lists published races from date on, soonest first.
func (s *Store) Upcoming(ctx context.Context, q db.Querier, from string, limit int) ([]RaceRow, error) {
	return s.raceRows(ctx, q, `WHERE r.published_at IS NOT NULL AND r.rehearsal_of IS NULL AND r.race_date >= ?`, `ORDER BY r.race_date, r.id LIMIT ?`, from, limit)
}

// DirectedBy lists the races user directs, newest race day first.
func (s *Store) DirectedBy(ctx context.Context, userID int64) ([]RaceRow, error) {
	return s.raceRows(ctx, s.db, `JOIN race_directors d ON d.race_id = r.id AND d.user_id = ? WHERE r.rehearsal_of IS NULL`, `ORDER BY r.race_date DESC, r.id DESC LIMIT 100`, userID)
}

func (s *Store) raceRows(ctx context.Context, q db.Querier, where, order string, args ...any) ([]RaceRow, error) {
	rows, err := q.Query(ctx, `SELECT r.slug, r.name, r.location, r.race_date, r.published_at IS NOT NULL,
		(SELECT count(*) FROM race_events e WHERE e.race_id = r.id),
		(SELECT COALESCE(SUM(e.cap - e.taken), 0) FROM race_events e WHERE e.race_id = r.id)
		FROM race_races r `+where+` `+order, args...)
	if err != nil {
		return nil, fmt.Errorf("race: list: %w", err)
	}
	defer rows.Close()
	var out []RaceRow
	for rows.Next() {
		var r RaceRow
		if err := rows.Scan(&r.Slug, &r.Name, &r.Location, &r.Date, &r.Published, &r.Events, &r.Left); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
