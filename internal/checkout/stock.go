package checkout

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"

	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/errs"
)

// Stock is a counted stock: each row of a table counts, in a column, the
// units claimed (sold and held) out of a cap in another column. A claim
// is one conditional UPDATE (taken + n <= cap) and a give-back one
// UPDATE (taken - n), the same text on SQLite and PostgreSQL: the
// database decides, so that two claims racing for the last unit (two
// instances, two tabs, a burst of thousands) never both win, and nothing
// is read first to decide. The table's CHECK (taken >= 0 AND taken <= cap)
// stands behind the count as the last line of defence.
//
// Its users: race's places per event (race_events.taken of cap), store
// items' units (race_items.taken of stock) and codes' uses
// (race_codes.used of max_uses, 0 for no limit). rent's units of a listing
// per day fit the same pair: a table rent_days (listing_id, day, taken,
// units, CHECK (taken <= units)), a row made for each day of a rental when
// first needed (INSERT ... ON CONFLICT DO NOTHING, units copied from the
// listing), then, in one transaction, Claim(ctx, tx, 1, "listing_id = ?
// AND day = ?", id, day) for each day in date order (one order for every
// rental: no deadlock between two); a refusal of any day returns
// ErrNoStock and the transaction rolls back, so a rental takes all its
// days or none. Cancelling or releasing it gives each day back.
type Stock struct {
	table, taken, cap string
	zeroIsUnlimited   bool
	claim, back, left string
}

// ident is what may name a table or a column here: constants in code,
// never input.
var ident = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// NewStock is the stock counted in column taken of table, out of column
// cap; with zeroIsUnlimited a cap of 0 means no limit (a code with no
// maximum of uses). It panics on a name that is not a plain identifier:
// names are the program's constants.
func NewStock(table, taken, cap string, zeroIsUnlimited bool) Stock {
	for _, n := range []string{table, taken, cap} {
		if !ident.MatchString(n) {
			panic(fmt.Sprintf("checkout: stock name %q", n))
		}
	}
	fits := taken + ` + ? <= ` + cap
	if zeroIsUnlimited {
		fits = `(` + cap + ` = 0 OR ` + fits + `)`
	}
	return Stock{table: table, taken: taken, cap: cap, zeroIsUnlimited: zeroIsUnlimited,
		claim: `UPDATE ` + table + ` SET ` + taken + ` = ` + taken + ` + ? WHERE ` + fits + ` AND `,
		back:  `UPDATE ` + table + ` SET ` + taken + ` = ` + taken + ` - ? WHERE `,
		left:  `SELECT ` + cap + ` - ` + taken + `, ` + cap + ` FROM ` + table + ` WHERE `}
}

// ErrNoStock refuses a claim: not that many units are left (or the row's
// condition does not hold, or there is no such row).
var ErrNoStock = errs.E(errs.Conflict, "Sold out: not that many are left.")

// Claim takes n units (n > 0) of the one row where selects (SQL with ?
// parameters args, such as "id = ?"; it may add the caller's conditions,
// such as a sale's window), if they fit under its cap; ErrNoStock if they
// do not, or if where selects no row. It runs in tx, whose rollback gives
// the units back; where must select at most one row (more is an error,
// and tx must then roll back).
func (s Stock) Claim(ctx context.Context, tx *db.Tx, n int, where string, args ...any) error {
	if n <= 0 {
		return fmt.Errorf("checkout: claim %d of %s", n, s.table)
	}
	res, err := tx.Exec(ctx, s.claim+`(`+where+`)`, append([]any{n, n}, args...)...)
	if err != nil {
		return fmt.Errorf("checkout: claim %s: %w", s.table, err)
	}
	switch k, err := res.RowsAffected(); {
	case err != nil:
		return fmt.Errorf("checkout: claim %s: %w", s.table, err)
	case k == 0:
		return ErrNoStock
	case k > 1:
		return fmt.Errorf("checkout: claim of %s matched %d rows", s.table, k)
	}
	return nil
}

// GiveBack returns n units (n > 0) to every row where selects (a released
// hold's, a cancelled purchase's). The table's CHECK (taken >= 0) refuses
// giving back more than was taken.
func (s Stock) GiveBack(ctx context.Context, tx *db.Tx, n int, where string, args ...any) error {
	if n <= 0 {
		return fmt.Errorf("checkout: give back %d of %s", n, s.table)
	}
	if _, err := tx.Exec(ctx, s.back+`(`+where+`)`, append([]any{n}, args...)...); err != nil {
		return fmt.Errorf("checkout: give back %s: %w", s.table, err)
	}
	return nil
}

// GiveBackEach returns n[id] units to the row whose id column is id, for
// each id, in the order of ids: one order for every transaction, so that
// two giving back to the same rows never deadlock.
func (s Stock) GiveBackEach(ctx context.Context, tx *db.Tx, n map[int64]int) error {
	for _, id := range slices.Sorted(maps.Keys(n)) {
		if err := s.GiveBack(ctx, tx, n[id], "id = ?", id); err != nil {
			return err
		}
	}
	return nil
}

// Left is how many units the one row where selects has left to claim
// now, and whether it has a limit at all (false for a cap of 0 with
// zeroIsUnlimited); ErrNotFound if there is no such row. It is for telling
// a buyer, never for deciding: Claim decides.
func (s Stock) Left(ctx context.Context, q db.Querier, where string, args ...any) (left int, limited bool, err error) {
	var cap int
	err = db.Scan(q.QueryRow(ctx, s.left+`(`+where+`)`, args...), &left, &cap)
	if errors.Is(err, errs.ErrNotFound) {
		return 0, false, err
	}
	if err != nil {
		return 0, false, fmt.Errorf("checkout: left of %s: %w", s.table, err)
	}
	if s.zeroIsUnlimited && cap == 0 {
		return 0, false, nil
	}
	return left, true, nil
}
