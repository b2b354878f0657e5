package waitlist

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// store is the waiting list's SQL: race_waitlist, and the counts of
// race_events it keeps. race_events.waiting counts the runners waiting;
// race's claims of places read it, so that a place that comes back goes
// to the list. An invitation keeps a place (taken, races.Places) until it
// is used or expires.
type store struct{ db *db.DB }

func ms(n int64) time.Time { return time.UnixMilli(n).UTC() }

// Entry is a runner's live place on an event's waiting list.
type Entry struct {
	ID        int64
	Status    string     // waiting, invited
	ExpiresAt *time.Time // an invitation's end
	Ahead     int        // waiting runners before this one
	Entered   time.Time  // when the runner joined (a lottery's entrant: before the draw)
}

// entry is user's live entry on event's list; nil if none.
func (s *store) entry(ctx context.Context, eventID, userID int64) (*Entry, error) {
	var w Entry
	var exp sql.NullInt64
	var entered int64
	err := db.Scan(s.db.QueryRow(ctx, `SELECT id, status, expires_at, created_at FROM race_waitlist
		WHERE event_id = ? AND user_id = ? AND status IN ('waiting', 'invited')`, eventID, userID), &w.ID, &w.Status, &exp, &entered)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	w.Entered = ms(entered)
	if exp.Valid {
		t := ms(exp.Int64)
		w.ExpiresAt = &t
	}
	if w.Status == "waiting" {
		err = db.Scan(s.db.QueryRow(ctx, `SELECT count(*) FROM race_waitlist o, race_waitlist me WHERE me.id = ?
			AND o.event_id = me.event_id AND o.status = 'waiting' AND (o.rank < me.rank OR o.rank = me.rank AND o.id < me.id)`,
			w.ID), &w.Ahead)
	}
	return &w, err
}

// join puts user on event's list (once: a second join finds the first);
// base is the origin of the request that joins (its invitation's links).
func (s *store) join(ctx context.Context, tx *db.Tx, eventID, userID int64, email, base string, now time.Time) error {
	// Last in line: after a lottery's draw too (its entrants hold ranks
	// 1..n; a runner joining later must not go before them).
	res, err := tx.Exec(ctx, `INSERT INTO race_waitlist (event_id, user_id, email, status, created_at, rank, base)
		VALUES (?, ?, ?, 'waiting', ?, (SELECT coalesce(max(rank), 0) + 1 FROM race_waitlist WHERE event_id = ?), ?)
		ON CONFLICT DO NOTHING`, eventID, userID, email, now.UnixMilli(), eventID, base)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // on it already
	}
	_, err = tx.Exec(ctx, `UPDATE race_events SET waiting = waiting + 1 WHERE id = ?`, eventID)
	return err
}

// leave takes user off event's list: a waiting place goes, an
// invitation's kept place comes back.
func (s *store) leave(ctx context.Context, tx *db.Tx, eventID, userID int64) error {
	var status string
	err := db.Scan(tx.QueryRow(ctx, `SELECT status FROM race_waitlist WHERE event_id = ? AND user_id = ? AND status IN ('waiting', 'invited')`,
		eventID, userID), &status)
	if errors.Is(err, errs.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	res, err := tx.Exec(ctx, `UPDATE race_waitlist SET status = 'left' WHERE event_id = ? AND user_id = ? AND status = ?`, eventID, userID, status)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil // moved meanwhile (invited, or left in another tab): unchanged
	}
	if status == "invited" {
		return races.Places.GiveBack(ctx, tx, 1, "id = ?", eventID)
	}
	_, err = tx.Exec(ctx, `UPDATE race_events SET waiting = waiting - 1 WHERE id = ?`, eventID)
	return err
}

// lock takes the row locks of user's live entries (a no-op update; SQLite
// has one writer).
func (s *store) lock(ctx context.Context, tx *db.Tx, userID int64) error {
	_, err := tx.Exec(ctx, `UPDATE race_waitlist SET status = status WHERE user_id = ? AND status IN ('waiting', 'invited')`, userID)
	return err
}

// entered is the events whose lists user is on (waiting or invited).
func (s *store) entered(ctx context.Context, tx *db.Tx, userID int64) ([]int64, error) {
	return db.All(ctx, s.db, tx, func(rows *sql.Rows) (ev int64, err error) {
		return ev, rows.Scan(&ev)
	}, `SELECT event_id FROM race_waitlist WHERE user_id = ? AND status IN ('waiting', 'invited')`, userID)
}

// invitation is a waiting runner invited to take a kept place (or whose
// invitation expired).
type invitation struct {
	EventID   int64
	UserID    int64
	Email     string
	ExpiresAt time.Time
	Base      string // the origin of the request that joined the list (web.Origin)
}

// invite expires invitations that ran out at now (their places come back)
// and invites the next waiting runners of every event with places free,
// each invitation keeping a place until until; also runs in the same
// transaction, told of the invitations expired and made (their notices
// and mails). It returns the invitations made.
func (s *store) invite(ctx context.Context, now, until time.Time, also func(tx *db.Tx, expired, invited []invitation) error) ([]invitation, error) {
	var out []invitation
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		out = out[:0]
		expired, err := db.All(ctx, s.db, tx, func(rows *sql.Rows) (in invitation, err error) {
			var exp int64
			err = rows.Scan(&in.EventID, &in.UserID, &in.Email, &in.Base, &exp)
			in.ExpiresAt = ms(exp)
			return in, err
		}, `UPDATE race_waitlist SET status = 'expired' WHERE status = 'invited' AND expires_at <= ?
			RETURNING event_id, user_id, email, base, expires_at`, now.UnixMilli())
		if err != nil {
			return err
		}
		back := map[int64]int{}
		for _, in := range expired {
			back[in.EventID]++
		}
		if err := races.Places.GiveBackEach(ctx, tx, back); err != nil {
			return err
		}
		type free struct{ event, n int64 }
		frees, err := db.All(ctx, s.db, tx, func(rows *sql.Rows) (f free, err error) { return f, rows.Scan(&f.event, &f.n) },
			`SELECT id, `+freeForList+` FROM race_events WHERE `+listHasFree+` AND (drawn_at IS NOT NULL OR NOT lottery)`, now.UnixMilli())
		if err != nil {
			return err
		}
		for _, f := range frees {
			inv, err := inviteNext(ctx, tx, f.event, f.n, now, until)
			if err != nil {
				return err
			}
			out = append(out, inv...)
		}
		if also != nil && len(expired)+len(out) > 0 {
			return also(tx, expired, out)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// An event's places free for its waiting list at a time (the parameter):
// listHasFree says it has some, freeForList how many.
const (
	listHasFree = `waiting > 0 AND taken < cap AND closes_at > ?`
	freeForList = `CASE WHEN cap - taken < waiting THEN cap - taken ELSE waiting END`
)

// inviteFree invites the next waiting runners of event ev to its places
// free at now, each invitation keeping a place until until.
func inviteFree(ctx context.Context, tx *db.Tx, ev int64, now, until time.Time) ([]invitation, error) {
	var n int64
	err := db.Scan(tx.QueryRow(ctx, `SELECT `+freeForList+` FROM race_events WHERE id = ? AND `+listHasFree, ev, now.UnixMilli()), &n)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return inviteNext(ctx, tx, ev, n, now, until)
}

// inviteNext invites the next n waiting runners of event ev, in their
// order on the list, each invitation keeping a place until until.
func inviteNext(ctx context.Context, tx *db.Tx, ev, n int64, now, until time.Time) ([]invitation, error) {
	inv, err := db.All(ctx, nil, tx, func(rows *sql.Rows) (in invitation, err error) {
		in.EventID, in.ExpiresAt = ev, until
		return in, rows.Scan(&in.UserID, &in.Email, &in.Base)
	}, `UPDATE race_waitlist SET status = 'invited', invited_at = ?, expires_at = ?
		WHERE id IN (SELECT id FROM race_waitlist WHERE event_id = ? AND status = 'waiting' ORDER BY rank, id LIMIT ?)
		AND status = 'waiting'
		RETURNING user_id, email, base`, now.UnixMilli(), until.UnixMilli(), ev, n)
	if err != nil {
		return nil, err
	}
	// n was counted free in this transaction: the claim takes them (and
	// refuses, as a bug, more than are left).
	if k := len(inv); k > 0 {
		if err := races.Places.Claim(ctx, tx, k, "id = ?", ev); err != nil {
			return nil, fmt.Errorf("waitlist: keep invited places: %w", err)
		}
		if _, err := tx.Exec(ctx, `UPDATE race_events SET waiting = waiting - ? WHERE id = ?`, k, ev); err != nil {
			return nil, fmt.Errorf("waitlist: keep invited places: %w", err)
		}
	}
	return inv, nil
}

// accept uses user's invitation to event that runs at now (ErrNoInvitation
// if none): race opens the runner's hold on its place in tx.
func (s *store) accept(ctx context.Context, tx *db.Tx, eventID, userID int64, now time.Time) error {
	res, err := tx.Exec(ctx, `UPDATE race_waitlist SET status = 'used' WHERE event_id = ? AND user_id = ? AND status = 'invited' AND expires_at > ?`,
		eventID, userID, now.UnixMilli())
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNoInvitation
	}
	return nil
}

// about is what a letter names of an event: its race and itself.
type about struct {
	RaceID                int64
	Race, Slug, Event, TZ string
}

// abouts is what letters name of events ids (repeats allowed), read in tx.
func (s *store) abouts(ctx context.Context, tx *db.Tx, ids []int64) (map[int64]about, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	out := make(map[int64]about, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	_, err := db.All(ctx, s.db, tx, func(rows *sql.Rows) (x about, err error) {
		var id int64
		err = rows.Scan(&id, &x.RaceID, &x.Race, &x.Slug, &x.Event, &x.TZ)
		out[id] = x
		return x, err
	}, `SELECT e.id, r.id, r.name, r.slug, e.name, r.tz FROM race_events e
		JOIN race_races r ON r.id = e.race_id WHERE e.id IN (`+db.Params(len(args))+`)`, args...)
	return out, err
}
