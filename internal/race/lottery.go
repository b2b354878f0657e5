package race

import (
	"context"
	crand "crypto/rand"
	"database/sql"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/tutti-dev/tutti/internal/db"
)

// Lottery mode: for an oversubscribed race, an event's places are drawn
// instead of going to the fastest. From the opening to DrawAt runners
// enter (the event's waiting list, waitlist.go; nobody claims a place
// meanwhile); at DrawAt the sweeper draws: every entry gets a random rank,
// and the waiting list's invitations then go out in rank order, the first
// Cap entrants invited at once, the others waiting in the drawn order for
// places that come back. Arriving first wins nothing.

// draw draws every lottery whose draw time has come at now.
func (s *Service) draw(ctx context.Context) (int, error) {
	return s.store.Draw(ctx, s.now(), shuffler())
}

// shuffler is a random order from the system's secure source: a draw
// nobody can predict from the server's start time or earlier draws.
func shuffler() func(n int, swap func(i, j int)) {
	var seed [32]byte
	crand.Read(seed[:]) // never fails (crypto/rand)
	r := rand.New(rand.NewChaCha8(seed))
	return r.Shuffle
}

// Draw ranks the entries of every lottery event whose draw is due at now
// in the order shuffle gives, marks it drawn, and returns how many events
// it drew. Each event is drawn in its own transaction, once (drawn_at is
// set under the statement that checks it is not).
func (s *Store) Draw(ctx context.Context, now time.Time, shuffle func(n int, swap func(i, j int))) (int, error) {
	due, err := db.All(ctx, s.db, s.db, func(rows *sql.Rows) (id int64, err error) { return id, rows.Scan(&id) },
		`SELECT id FROM race_events WHERE lottery = ? AND drawn_at IS NULL AND draw_at <= ?`, true, now.UnixMilli())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ev := range due {
		err := s.db.WithTx(ctx, func(tx *db.Tx) error {
			res, err := tx.Exec(ctx, `UPDATE race_events SET drawn_at = ? WHERE id = ? AND drawn_at IS NULL`, now.UnixMilli(), ev)
			if err != nil {
				return err
			}
			if k, _ := res.RowsAffected(); k == 0 {
				return nil // another instance drew it
			}
			// The entries made before the draw time are drawn; any made
			// between it and this sweep come after them, in turn.
			type entry struct {
				id      int64
				entered bool
			}
			entries, err := db.All(ctx, s.db, tx, func(rows *sql.Rows) (e entry, err error) { return e, rows.Scan(&e.id, &e.entered) },
				`SELECT w.id, w.created_at < e.draw_at FROM race_waitlist w JOIN race_events e ON e.id = w.event_id
				WHERE w.event_id = ? AND w.status = 'waiting' ORDER BY w.id`, ev)
			if err != nil {
				return err
			}
			var ids, late []int64
			for _, e := range entries {
				if e.entered {
					ids = append(ids, e.id)
				} else {
					late = append(late, e.id)
				}
			}
			shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
			ids = append(ids, late...)
			if err := setRanks(ctx, tx, ids); err != nil {
				return err
			}
			n++
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// rankChunk is how many entries one statement ranks (two parameters each,
// well under SQLite's and PostgreSQL's limits).
const rankChunk = 1000

// setRanks gives waiting-list entries ids ranks 1, 2, ... in their order,
// a thousand a statement (one each took a second on PostgreSQL for 10,000
// entrants).
func setRanks(ctx context.Context, tx *db.Tx, ids []int64) error {
	for start := 0; start < len(ids); start += rankChunk {
		chunk := ids[start:min(start+rankChunk, len(ids))]
		var b strings.Builder
		args := make([]any, 0, 2*len(chunk))
		for i, id := range chunk {
			if i == 0 {
				b.WriteString("(CAST(? AS BIGINT), CAST(? AS BIGINT))") // the column types, for PostgreSQL
			} else {
				b.WriteString(", (?, ?)")
			}
			args = append(args, id, start+i+1)
		}
		// Each chunk size is its own text: a draw has two at most.
		if _, err := tx.Exec(ctx, `WITH ranks (id, rank) AS (VALUES `+b.String()+`)
			UPDATE race_waitlist SET rank = ranks.rank FROM ranks WHERE race_waitlist.id = ranks.id`, args...); err != nil {
			return err
		}
	}
	return nil
}
