package race

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/race/races"
)

// The places of an event are counted in race_events.taken, a counted
// stock (checkout.Stock: eventPlaces), as are store items' units (itemUnits)
// and codes' uses (codeUses): a hold takes a place with a single conditional
// UPDATE (taken + 1 <= cap, inside the registration window), and gives it
// back when it is released. A written
// registration keeps its hold's place. Every statement that moves a hold
// between statuses names the status it expects, so that two instances (or
// a runner's two tabs) racing on one hold move it once.

// race's counted stocks: an event's places, a store item's units, a
// code's uses (a max_uses of 0: no limit).
var (
	eventPlaces = races.Places
	itemUnits   = checkout.NewStock("race_items", "taken", "stock", false)
	codeUses    = checkout.NewStock("race_codes", "used", "max_uses", true)
)

// The moves of a hold between its states (checkout.State), each allowed
// by the purchase's table of transitions (checked at start): every
// statement that moves a hold names the states it may start from, so that
// two instances (or a runner's two tabs) racing on one hold move it once.
var (
	toPaying   = checkout.MustMove(checkout.Paying, checkout.Held, checkout.Paying) // StartPaying: a retried submit too
	toDeclined = checkout.MustMove(checkout.Held, checkout.Paying)                  // PaymentFailed
	toPaid     = checkout.MustMove(checkout.Paid, checkout.Paying)                  // MarkPaid
	toDone     = checkout.MustMove(checkout.Done, checkout.Paid)                    // the writer (store_write.go)
	toReleased = checkout.MustMove(checkout.Released, checkout.Held)                // Release, ReleaseExpired
	toReclaim  = checkout.MustMove(checkout.Held, checkout.Released)                // Reclaim
)

// isHeld and isLive are conditions on a hold's status: held (the wizard
// may change it), and live (its place is claimed: held, paying or paid).
var (
	isHeld = "status = " + checkout.Held.SQL()
	isLive = checkout.In("status", checkout.LiveStates...)
)

const holdCols = `id, event_id, race_id, user_id, status, expires_at, first_name, last_name, email, birth_date, gender, city,
	emergency, step, waiver_at, amount, payment_id, attempt, coalesce(team_id, 0), donation, coalesce(code_id, 0), discount, shirt`

func scanHold(sc interface{ Scan(...any) error }) (*Hold, error) {
	var h Hold
	var exp int64
	var waiver sql.NullInt64
	if err := sc.Scan(&h.ID, &h.EventID, &h.RaceID, &h.UserID, &h.Status, &exp, &h.FirstName, &h.LastName, &h.Email,
		&h.BirthDate, &h.Gender, &h.City, &h.Emergency, &h.Step, &waiver, &h.Amount, &h.PaymentID, &h.Attempt,
		&h.TeamID, &h.Donation, &h.CodeID, &h.Discount, &h.Shirt); err != nil {
		return nil, db.Translate(err)
	}
	h.ExpiresAt, h.WaiverAt = ms(exp), msPtr(waiver)
	return &h, nil
}

// Hold is hold id, with the names of its team and code. Every page of
// the wizard reads it: in embedded mode its row comes from memory (s.holds;
// it was a seventh of the server's core in a profile of the capacity run);
// the names, which directors change, are read only when it has either (a
// subquery for them in every read cost the rush a quarter more per read).
func (s *Store) Hold(ctx context.Context, id string) (*Hold, error) {
	h, ok := s.holds.Get(id)
	if !ok {
		g := s.holds.Reading(id)
		read, err := scanHold(s.db.QueryRow(ctx, `SELECT `+holdCols+` FROM race_holds WHERE id = ?`, id))
		if err != nil {
			return nil, fmt.Errorf("race hold: %w", err)
		}
		s.holds.Keep(g, id, *read)
		h = *read
	}
	if h.TeamID != 0 || h.CodeID != 0 {
		if err := db.Scan(s.db.QueryRow(ctx, `SELECT coalesce((SELECT name FROM race_teams WHERE id = ?), ''),
			coalesce((SELECT code FROM race_codes WHERE id = ?), '')`, h.TeamID, h.CodeID), &h.TeamName, &h.Code); err != nil {
			return nil, fmt.Errorf("race hold: %w", err)
		}
	}
	return &h, nil
}

// Standing says whether user has a confirmed registration in event, and
// whether a live hold, in one read (Registered and LiveHold read either).
func (s *Store) Standing(ctx context.Context, eventID, userID int64) (registered, held bool, err error) {
	err = db.Scan(s.db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM race_registrations WHERE event_id = ? AND user_id = ? AND status = 'confirmed'),
		EXISTS (SELECT 1 FROM race_holds WHERE event_id = ? AND user_id = ? AND `+isLive+`)`, eventID, userID, eventID, userID), &registered, &held)
	if err != nil {
		return false, false, fmt.Errorf("race standing: %w", err)
	}
	return registered, held, nil
}

// LiveHold is user's hold in event that is not done or released, if any.
func (s *Store) LiveHold(ctx context.Context, q db.Querier, eventID, userID int64) (*Hold, error) {
	h, err := scanHold(q.QueryRow(ctx, `SELECT `+holdCols+` FROM race_holds
		WHERE event_id = ? AND user_id = ? AND `+isLive, eventID, userID))
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	return h, err
}

// claim takes a place in event for a hold, if one is left, nobody waits
// for it on the waiting list, it is not a lottery's before its draw, and
// the event takes registrations at now (and no director closed it): the
// one statement that decides a place.
func claim(ctx context.Context, tx *db.Tx, eventID int64, now time.Time) (bool, error) {
	return claimed(eventPlaces.Claim(ctx, tx, 1, claimable, eventID, now.UnixMilli(), now.UnixMilli()))
}

// claimable is claim's condition on the event (its id, then now twice).
const claimable = `id = ? AND waiting = 0 AND (drawn_at IS NOT NULL OR NOT lottery)
		AND opens_at <= ? AND closes_at > ? AND closed_at IS NULL`

// claimed is a claim's outcome as race's callers take it: false for no
// stock, an error for a failure.
func claimed(err error) (bool, error) {
	if errors.Is(err, checkout.ErrNoStock) {
		return false, nil
	}
	return err == nil, err
}

// Claim takes a place in h.EventID and stores h as an open hold with it;
// false if no place was left (or the event does not take registrations),
// or if the runner has a confirmed registration or a live hold in it
// already (Standing tells which), so that nothing is read before the
// claim. A live hold of the runner's made meanwhile (another tab, in
// another transaction) is ErrConflict.
func (s *Store) Claim(ctx context.Context, tx *db.Tx, h *Hold, now time.Time) (bool, error) {
	ok, err := claimed(eventPlaces.Claim(ctx, tx, 1, claimable+`
		AND NOT EXISTS (SELECT 1 FROM race_registrations g WHERE g.event_id = race_events.id AND g.user_id = ? AND g.status = 'confirmed')
		AND NOT EXISTS (SELECT 1 FROM race_holds h WHERE h.event_id = race_events.id AND h.user_id = ? AND h.`+isLive+`)`,
		h.EventID, now.UnixMilli(), now.UnixMilli(), h.UserID, h.UserID))
	if err != nil || !ok {
		return false, err
	}
	err = insertHold(ctx, tx, h, nil, now)
	return err == nil, err
}

// insertHold stores h as an open hold until h.ExpiresAt, with code c (nil:
// none) and its discount, worked out from the event's price as it is in
// the database now: the one statement for every way a hold is made (a
// claim, early access, an invitation).
func insertHold(ctx context.Context, tx *db.Tx, h *Hold, c *Code, now time.Time) error {
	var codeID sql.NullInt64
	var percent int
	if c != nil {
		codeID, percent = sql.NullInt64{Int64: c.ID, Valid: true}, c.Percent
	}
	return db.Scan(tx.QueryRow(ctx, `INSERT INTO race_holds (id, event_id, race_id, user_id, status, expires_at, email, amount, code_id, discount, created_at, base)
		VALUES (?, ?, ?, ?, `+checkout.Held.SQL()+`, ?, ?, ?, ?, (SELECT ev.price FROM race_events ev WHERE ev.id = ?) * ? / 100, ?, ?) RETURNING discount`,
		h.ID, h.EventID, h.RaceID, h.UserID, h.ExpiresAt.UnixMilli(), h.Email, h.Amount, codeID, h.EventID, percent, now.UnixMilli(), h.Base), &h.Discount)
}

// Reclaim takes a place again for a released hold (its runner came back
// after it expired), if one is left; it becomes open until expires.
func (s *Store) Reclaim(ctx context.Context, tx *db.Tx, h *Hold, now, expires time.Time) (bool, error) {
	ok, err := claim(ctx, tx, h.EventID, now)
	if err != nil || !ok {
		return false, err
	}
	res, err := tx.Exec(ctx, `UPDATE race_holds SET `+toReclaim.Set("status")+`, expires_at = ? WHERE id = ? AND `+toReclaim.Where("status"),
		expires.UnixMilli(), h.ID)
	s.holdsChanged(tx, h.ID)
	if err != nil {
		return false, err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return false, errs.E(errs.Conflict, "This registration changed in another window; reload the page.")
	}
	return true, nil
}

// SaveEntrant stores the details page on an open hold of user's.
func (s *Store) SaveEntrant(ctx context.Context, tx *db.Tx, id string, userID int64, e Entrant, step int) error {
	return s.onOpen(ctx, tx, id, userID, `first_name = ?, last_name = ?, email = ?, birth_date = ?, gender = ?, city = ?,
		emergency = ?, shirt = ?, step = CASE WHEN step < ? THEN ? ELSE step END`,
		e.FirstName, e.LastName, e.Email, e.BirthDate, e.Gender, e.City, e.Emergency, e.Shirt, step, step)
}

// AcceptWaiver records the waiver's acceptance on an open hold of user's.
func (s *Store) AcceptWaiver(ctx context.Context, tx *db.Tx, id string, userID int64, at time.Time, step int) error {
	return s.onOpen(ctx, tx, id, userID, `waiver_at = ?, step = CASE WHEN step < ? THEN ? ELSE step END`, at.UnixMilli(), step, step)
}

// onOpen sets set on hold id if it is user's and open.
func (s *Store) onOpen(ctx context.Context, tx *db.Tx, id string, userID int64, set string, args ...any) error {
	res, err := tx.Exec(ctx, `UPDATE race_holds SET `+set+` WHERE id = ? AND user_id = ? AND `+isHeld,
		append(args, id, userID)...)
	s.holdsChanged(tx, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrHoldMoved
	}
	return nil
}

// ErrHoldMoved is a change to a hold that is no longer open (paid in
// another window, or released): the page is stale.
var ErrHoldMoved = errs.E(errs.Conflict, "This registration has moved on (in another window, or its hold ran out). Reload the page.")

// StartPaying moves an open (or already paying: a retried submit) hold of
// user's to paying, at amount; false if it is neither, or if what amount
// was worked out from has changed since it was read (the donation, the
// store lines, the code's discount, the event's price: another window of
// the runner's, or the director): the amount charged is always the one the
// hold's row makes at the moment it starts paying.
func (s *Store) StartPaying(ctx context.Context, tx *db.Tx, h *Hold, userID, price, amount int64, now time.Time) (bool, error) {
	lines := Total(0, 0, h.Lines)
	res, err := tx.Exec(ctx, `UPDATE race_holds SET `+toPaying.Set("status")+`, amount = ?, paying_at = ?
		WHERE id = ? AND user_id = ? AND `+toPaying.Where("status")+` AND (status = `+checkout.Paying.SQL()+` OR expires_at > ?
			AND donation = ? AND discount = ? AND COALESCE(code_id, 0) = ?
			AND (SELECT price FROM race_events ev WHERE ev.id = race_holds.event_id) = ?
			AND COALESCE((SELECT SUM(hi.qty * hi.price) FROM race_hold_items hi WHERE hi.hold_id = race_holds.id), 0) = ?)`,
		amount, now.UnixMilli(), h.ID, userID, now.UnixMilli(), h.Donation, h.Discount, h.CodeID, price, lines)
	s.holdsChanged(tx, h.ID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// PaymentFailed moves a paying hold back to open: the card was declined,
// nothing was charged, the runner may try another, under the next
// attempt's key (a gateway answers a key sent again with its first
// outcome, the decline). A non-zero before moves it only if it has been
// paying since before it (not paying anew since).
func (s *Store) PaymentFailed(ctx context.Context, tx *db.Tx, id string, before time.Time) error {
	q, args := `UPDATE race_holds SET `+toDeclined.Set("status")+`, attempt = attempt + 1 WHERE id = ? AND `+toDeclined.Where("status"), []any{id}
	if !before.IsZero() {
		q, args = q+` AND paying_at < ?`, append(args, before.UnixMilli())
	}
	_, err := tx.Exec(ctx, q, args...)
	s.holdsChanged(tx, id)
	return err
}

// MarkPaid moves a paying hold to paid: the durable hand-off to the
// registration writer (WritePaid), committed before the runner is told.
// A hold paid already by the same payment (the same form sent twice at
// once: both sends charged under one key, and the gateway answered both
// with the one charge) is not an error: the second send answers what the
// first did.
func (s *Store) MarkPaid(ctx context.Context, tx *db.Tx, id, paymentID string, now time.Time) error {
	res, err := tx.Exec(ctx, `UPDATE race_holds SET `+toPaid.Set("status")+`, payment_id = ?, paid_at = ? WHERE id = ? AND `+toPaid.Where("status"),
		paymentID, now.UnixMilli(), id)
	s.holdsChanged(tx, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 1 {
		return nil
	}
	var status checkout.State
	var paid string
	if err := db.Scan(tx.QueryRow(ctx, `SELECT status, payment_id FROM race_holds WHERE id = ?`, id), &status, &paid); err != nil {
		return fmt.Errorf("race: hold %s paid: %w", id, err)
	}
	if (status == checkout.Paid || status == checkout.Done) && paid == paymentID {
		return nil
	}
	return fmt.Errorf("race: hold %s paid (payment %q) but it is %s (payment %q)", id, paymentID, status, paid)
}

// released is the SET of a hold's release: its store lines go back to
// stock with it (giveBack), so a hold past the store page that had lines
// is sent back to that page; a hold renewed later chooses again.
var released = toReleased.Set("status") + `, step = CASE WHEN step >= ` + strconv.Itoa(stepStore) + ` AND EXISTS
	(SELECT 1 FROM race_hold_items hi WHERE hi.hold_id = race_holds.id) THEN ` + strconv.Itoa(stepStore-1) + ` ELSE step END`

// Release gives an open hold of user's place back (the runner left), with
// its store items and its code's use.
func (s *Store) Release(ctx context.Context, tx *db.Tx, id string, userID int64) error {
	rs, err := s.releasing(ctx, tx, `UPDATE race_holds SET `+released+` WHERE id = ? AND user_id = ? AND `+toReleased.Where("status")+`
		RETURNING id, event_id, code_id`, id, userID)
	if err == nil && len(rs) == 0 {
		return ErrHoldMoved
	}
	if err != nil {
		return err
	}
	return giveBack(ctx, tx, rs)
}

// ReleaseExpired gives back the places (store items, code uses) of up to
// limit open holds whose expiry passed at now, and returns how many.
func (s *Store) ReleaseExpired(ctx context.Context, now time.Time, limit int) (int, error) {
	n := 0
	err := s.db.WithTx(ctx, func(tx *db.Tx) error {
		rs, err := s.releasing(ctx, tx, `UPDATE race_holds SET `+released+`
			WHERE id IN (SELECT id FROM race_holds WHERE `+toReleased.Where("status")+` AND expires_at <= ? LIMIT ?) AND `+toReleased.Where("status")+`
			RETURNING id, event_id, code_id`, now.UnixMilli(), limit)
		if err != nil {
			return err
		}
		n = len(rs)
		return giveBack(ctx, tx, rs)
	})
	return n, err
}

// releasedHold is a hold a release statement moved to released.
type releasedHold struct {
	id    string
	event int64
	code  sql.NullInt64
}

// releasing runs a release statement that returns id, event_id, code_id.
// giveBack's changes to the same holds follow in the transaction: both are
// dropped from memory at its commit.
func (s *Store) releasing(ctx context.Context, tx *db.Tx, q string, args ...any) ([]releasedHold, error) {
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []releasedHold
	var ids []string
	for rows.Next() {
		var r releasedHold
		if err := rows.Scan(&r.id, &r.event, &r.code); err != nil {
			return nil, err
		}
		out = append(out, r)
		ids = append(ids, r.id)
	}
	s.holdsChanged(tx, ids...)
	return out, rows.Err()
}

// giveBack returns what released holds had taken: their places, their
// store lines' units (the lines go), and their codes' uses (the code and
// its discount leave the hold).
func giveBack(ctx context.Context, tx *db.Tx, rs []releasedHold) error {
	if len(rs) == 0 {
		return nil
	}
	events, codes := map[int64]int{}, map[int64]int{}
	ids := make([]any, len(rs))
	var coded []any
	for i, r := range rs {
		events[r.event]++
		ids[i] = r.id
		if r.code.Valid {
			codes[r.code.Int64]++
			coded = append(coded, r.id)
		}
	}
	if err := eventPlaces.GiveBackEach(ctx, tx, events); err != nil {
		return err
	}
	if err := codeUses.GiveBackEach(ctx, tx, codes); err != nil {
		return err
	}
	if len(coded) > 0 {
		if _, err := tx.Exec(ctx, `UPDATE race_holds SET code_id = NULL, discount = 0 WHERE id IN (`+db.Params(len(coded))+`)`, coded...); err != nil {
			return err
		}
	}
	rows, err := tx.Query(ctx, `DELETE FROM race_hold_items WHERE hold_id IN (`+db.Params(len(ids))+`) RETURNING item_id, qty`, ids...)
	if err != nil {
		return err
	}
	per := map[int64]int{}
	for rows.Next() {
		var item int64
		var n int
		if err := rows.Scan(&item, &n); err != nil {
			rows.Close()
			return err
		}
		per[item] += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	return itemUnits.GiveBackEach(ctx, tx, per)
}

// StalePaying is up to limit holds left paying since before: a process
// that died between charging and storing the outcome.
func (s *Store) StalePaying(ctx context.Context, before time.Time, limit int) ([]*Hold, error) {
	rows, err := s.db.Query(ctx, `SELECT `+holdCols+` FROM race_holds WHERE status = `+checkout.Paying.SQL()+` AND paying_at < ? LIMIT ?`,
		before.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*Hold
	for rows.Next() {
		h, err := scanHold(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// Queued is how many paid holds wait for the writer.
func (s *Store) Queued(ctx context.Context) (int, error) {
	var n int
	err := db.Scan(s.db.QueryRow(ctx, `SELECT count(*) FROM race_holds WHERE status = `+checkout.Paid.SQL()), &n)
	return n, err
}
