package waitlist

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
// enter (the event's waiting list, service.go; nobody claims a place
// meanwhile); at DrawAt the sweeper draws: every entry gets a random rank,
// and the waiting list's invitations then go out in rank order, the first
// Cap entrants invited at once, the others waiting in the drawn order for
// places that come back. Arriving first wins nothing.

// Draw draws every lottery whose draw time has come, in the order shuffle
// gives (nil: a random order nobody can predict, as the sweep draws):
// each draw's winners are invited, and every entrant told, in its
// transaction (tellDrawn). It returns how many events it drew.
func (s *Service) Draw(ctx context.Context, shuffle func(n int, swap func(i, j int))) (int, error) {
	if shuffle == nil {
		shuffle = shuffler()
	}
	now := s.now()
	return s.store.draw(ctx, now, now.Add(s.inviteFor), shuffle, func(tx *db.Tx, d drawn) error { return s.tellDrawn(ctx, tx, d) })
}

// shuffler is a random order from the system's secure source: a draw
// nobody can predict from the server's start time or earlier draws.
func shuffler() func(n int, swap func(i, j int)) {
	var seed [32]byte
	crand.Read(seed[:]) // never fails (crypto/rand)
	r := rand.New(rand.NewChaCha8(seed))
	return r.Shuffle
}

// drawEntry is a lottery's entrant as the draw tells them.
type drawEntry struct {
	UserID      int64
	Email, Base string // the join's (its mail's address and links)
	Entered     bool   // before the draw time: in the draw (else on the list after it)
}

// drawn is one event's draw: its entries in the drawn order, of which the
// first Invited are invited (their places kept until Until).
type drawn struct {
	EventID int64
	DrawAt  time.Time
	Entries []drawEntry
	Invited int
	Until   time.Time
}

// draw ranks the entries of every lottery event whose draw is due at now
// in the order shuffle gives, marks it drawn, invites the first entrants
// to the places free (each kept until until), runs also (nil: nothing)
// in the same transaction, and returns how many events it drew. Each
// event is drawn in its own transaction, once (drawn_at is set under the
// statement that checks it is not).
func (s *store) draw(ctx context.Context, now, until time.Time, shuffle func(n int, swap func(i, j int)), also func(tx *db.Tx, d drawn) error) (int, error) {
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
				id int64
				drawEntry
			}
			d := drawn{EventID: ev, Until: until}
			var drawAt int64
			entries, err := db.All(ctx, s.db, tx, func(rows *sql.Rows) (e entry, err error) {
				return e, rows.Scan(&e.id, &e.UserID, &e.Email, &e.Base, &e.Entered, &drawAt)
			}, `SELECT w.id, w.user_id, w.email, w.base, w.created_at < e.draw_at, e.draw_at FROM race_waitlist w JOIN race_events e ON e.id = w.event_id
				WHERE w.event_id = ? AND w.status = 'waiting' ORDER BY w.id`, ev)
			if err != nil {
				return err
			}
			d.DrawAt = ms(drawAt)
			var in, late []entry
			for _, e := range entries {
				if e.Entered {
					in = append(in, e)
				} else {
					late = append(late, e)
				}
			}
			if shuffle != nil {
				shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
			}
			entries = append(in, late...)
			ids := make([]int64, len(entries))
			d.Entries = make([]drawEntry, len(entries))
			for i, e := range entries {
				ids[i], d.Entries[i] = e.id, e.drawEntry
			}
			if err := setRanks(ctx, tx, ids); err != nil {
				return err
			}
			// The winners: the first entries, in rank order, to the places
			// free (all of them, nobody claims one before the draw).
			inv, err := inviteFree(ctx, tx, ev, now, until)
			if err != nil {
				return err
			}
			d.Invited = len(inv)
			if also != nil {
				return also(tx, d)
			}
			return nil
		})
		if err != nil {
			return n, err
		}
		n++
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
