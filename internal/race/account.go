package race

import (
	"context"
	"database/sql"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// An account's deletion (module.AccountHook) gives back everything the
// account held in race, in the deleting transaction: the rows go with the
// user (ON DELETE CASCADE), but the counts they made would stay: the places
// of its holds, invitations and registrations, its store units and code
// uses, its places in waiting lists. Its races go to a co-director; a race
// it directs alone, or a payment of its under way, refuses the deletion
// with a reason. Its confirmed registrations are cancelled, and paid ones
// refunded, as a director's cancellation does.

// ForgetAccount implements module.AccountHook.
func (a *App) ForgetAccount(ctx context.Context, tx *db.Tx, userID int64) error {
	touched, err := a.svc.forget(ctx, tx, userID)
	if err != nil {
		return err
	}
	a.svc.forgotten.Store(userID, touched)
	return nil
}

// AccountForgotten implements module.AccountHook: the races whose counts
// changed show it on the next request.
func (a *App) AccountForgotten(_ context.Context, userID int64) {
	if v, ok := a.svc.forgotten.LoadAndDelete(userID); ok {
		for slug, version := range v.(map[string]int64) {
			a.changed(slug, version)
		}
	}
	if a.Jobs != nil {
		a.Jobs.Notify() // the refunds
	}
}

// forget is ForgetAccount's work: it returns the races it changed, with
// their new versions.
func (s *Service) forget(ctx context.Context, tx *db.Tx, userID int64) (map[string]int64, error) {
	// Races: to the longest-serving other director; refused if none.
	type owned struct {
		id   int64
		name string
		heir int64
	}
	races, err := db.All(ctx, s.db, tx, func(rows *sql.Rows) (o owned, err error) {
		var heir *int64
		err = rows.Scan(&o.id, &o.name, &heir)
		if heir != nil {
			o.heir = *heir
		}
		return o, err
	}, `SELECT r.id, r.name, (SELECT d.user_id FROM race_directors d WHERE d.race_id = r.id AND d.user_id <> ?
		ORDER BY d.created_at, d.user_id LIMIT 1) FROM race_races r WHERE r.owner_id = ? AND r.rehearsal_of IS NULL ORDER BY r.id`, userID, userID)
	if err != nil {
		return nil, err
	}
	for _, o := range races {
		if o.heir == 0 {
			return nil, errs.E(errs.Conflict, "You direct %q alone: add a co-director to hand it over to, then delete your account.", o.name)
		}
		if _, err := tx.Exec(ctx, `UPDATE race_races SET owner_id = ? WHERE id = ?`, o.heir, o.id); err != nil {
			return nil, err
		}
	}
	// Rehearsal copies follow their race.
	if _, err := tx.Exec(ctx, `UPDATE race_races SET owner_id = (SELECT o.owner_id FROM race_races o WHERE o.id = race_races.rehearsal_of)
		WHERE owner_id = ? AND rehearsal_of IS NOT NULL`, userID); err != nil {
		return nil, err
	}
	// The account's live holds and waiting-list rows, locked (a no-op
	// update takes their row locks on PostgreSQL; SQLite has one writer):
	// a payment starting or an invitation going out meanwhile waits for
	// this transaction and then finds them gone.
	if _, err := tx.Exec(ctx, `UPDATE race_holds SET step = step WHERE user_id = ? AND `+isLive, userID); err != nil {
		return nil, err
	}
	s.store.allHoldsChanged(tx) // the account's holds go with it

	if err := s.waitlist.Lock(ctx, tx, userID); err != nil {
		return nil, err
	}
	var paying int
	if err := db.Scan(tx.QueryRow(ctx, `SELECT count(*) FROM race_holds WHERE user_id = ? AND `+checkout.In("status", checkout.Paying, checkout.Paid), userID), &paying); err != nil {
		return nil, err
	}
	if paying > 0 {
		return nil, errs.E(errs.Conflict, "A race payment of yours is being completed. Try again in a minute.")
	}
	events := map[int64]bool{}
	// Holds: released, with their store units and code uses.
	rs, err := s.store.releasing(ctx, tx, `UPDATE race_holds SET `+released+` WHERE user_id = ? AND `+toReleased.Where("status")+`
		RETURNING id, event_id, code_id`, userID)
	if err != nil {
		return nil, err
	}
	if err := giveBack(ctx, tx, rs); err != nil {
		return nil, err
	}
	for _, r := range rs {
		events[r.event] = true
	}
	// Waiting lists: a place in the line goes, an invitation's kept place
	// comes back.
	waits, err := s.waitlist.LeaveAll(ctx, tx, userID)
	if err != nil {
		return nil, err
	}
	for _, ev := range waits {
		events[ev] = true
	}
	// Registrations: cancelled (the place, store units and code use back)
	// and refunded.
	type reg struct{ race, id int64 }
	regs, err := db.All(ctx, s.db, tx, func(rows *sql.Rows) (r reg, err error) {
		return r, rows.Scan(&r.race, &r.id)
	}, `SELECT race_id, id FROM race_registrations WHERE user_id = ? AND status = 'confirmed'`, userID)
	if err != nil {
		return nil, err
	}
	for _, r := range regs {
		c, err := s.cancelIn(ctx, tx, r.race, r.id)
		if err != nil {
			return nil, err
		}
		events[c.EventID] = true
	}
	// Every race whose counts changed: a new version.
	if len(events) == 0 {
		return nil, nil
	}
	ids := make([]any, 0, len(events))
	for ev := range events {
		ids = append(ids, ev)
	}
	type race struct {
		id   int64
		slug string
	}
	changed, err := db.All(ctx, s.db, tx, func(rows *sql.Rows) (r race, err error) { return r, rows.Scan(&r.id, &r.slug) },
		`SELECT DISTINCT r.id, r.slug FROM race_races r JOIN race_events e ON e.race_id = r.id WHERE e.id IN (`+db.Params(len(ids))+`)`, ids...)
	if err != nil {
		return nil, err
	}
	touched := map[string]int64{}
	for _, r := range changed {
		if touched[r.slug], err = s.store.bump(ctx, tx, r.id, s.now()); err != nil {
			return nil, err
		}
	}
	return touched, nil
}
