package checkout_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
)

// stockTables are an app's shapes: places of events (with a window a
// claim must also satisfy), codes whose 0 uses means no limit, and rent's
// units of a listing per day.
const stockTables = `
CREATE TABLE co_events (id AUTOID, cap INTEGER NOT NULL, taken INTEGER NOT NULL DEFAULT 0, open INTEGER NOT NULL DEFAULT 1,
	CHECK (taken >= 0 AND taken <= cap));
CREATE TABLE co_codes (id AUTOID, max_uses INTEGER NOT NULL, used INTEGER NOT NULL DEFAULT 0,
	CHECK (used >= 0 AND (max_uses = 0 OR used <= max_uses)));
CREATE TABLE co_days (listing_id INTEGER NOT NULL, day TEXT NOT NULL, units INTEGER NOT NULL, taken INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (listing_id, day), CHECK (taken >= 0 AND taken <= units))`

var (
	events = checkout.NewStock("co_events", "taken", "cap", false)
	codes  = checkout.NewStock("co_codes", "used", "max_uses", true)
	days   = checkout.NewStock("co_days", "taken", "units", false)
)

func taken(t *testing.T, d *db.DB, table, col string, id int64) int {
	t.Helper()
	var n int
	if err := db.Scan(d.QueryRow(context.Background(), `SELECT `+col+` FROM `+table+` WHERE id = ?`, id), &n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestStockClaimAndGiveBack(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		dbtest.Exec(t, d, stockTables+`;
			INSERT INTO co_events (cap) VALUES (3);
			INSERT INTO co_events (cap, open) VALUES (5, 0);
			INSERT INTO co_codes (max_uses) VALUES (0);
			INSERT INTO co_codes (max_uses) VALUES (1)`)
		claim := func(s checkout.Stock, n int, where string, args ...any) error {
			return d.WithTx(ctx, func(tx *db.Tx) error { return s.Claim(ctx, tx, n, where, args...) })
		}
		back := func(s checkout.Stock, n int, where string, args ...any) error {
			return d.WithTx(ctx, func(tx *db.Tx) error { return s.GiveBack(ctx, tx, n, where, args...) })
		}
		if err := claim(events, 2, "id = ?", 1); err != nil {
			t.Fatalf("claim 2 of 3: %v", err)
		}
		if err := claim(events, 2, "id = ?", 1); !errors.Is(err, checkout.ErrNoStock) || errs.KindOf(err) != errs.Conflict {
			t.Fatalf("claim 2 more of 3: %v; want ErrNoStock (a conflict)", err)
		}
		if err := claim(events, 1, "id = ?", 1); err != nil {
			t.Fatalf("claim the last: %v", err)
		}
		if got := taken(t, d, "co_events", "taken", 1); got != 3 {
			t.Errorf("taken = %d; want 3", got)
		}
		if left, limited, err := events.Left(ctx, d, "id = ?", 1); err != nil || left != 0 || !limited {
			t.Errorf("Left = %d, %v, %v; want 0, limited", left, limited, err)
		}
		// The caller's own condition: a closed event gives nothing.
		if err := claim(events, 1, "id = ? AND open = 1", 2); !errors.Is(err, checkout.ErrNoStock) {
			t.Errorf("claim of a closed event: %v; want ErrNoStock", err)
		}
		if err := claim(events, 1, "id = ?", 99); !errors.Is(err, checkout.ErrNoStock) {
			t.Errorf("claim of no row: %v; want ErrNoStock", err)
		}
		for _, n := range []int{0, -1} {
			if err := claim(events, n, "id = ?", 1); err == nil || errors.Is(err, checkout.ErrNoStock) {
				t.Errorf("claim %d: %v; want a bug's error", n, err)
			}
			if err := back(events, n, "id = ?", 1); err == nil {
				t.Errorf("give back %d: no error", n)
			}
		}
		if err := back(events, 2, "id = ?", 1); err != nil {
			t.Fatalf("give back 2: %v", err)
		}
		if got := taken(t, d, "co_events", "taken", 1); got != 1 {
			t.Errorf("taken after giving 2 back = %d; want 1", got)
		}
		// A where that selects two rows is refused and rolled back.
		if err := claim(events, 1, "id IN (?, ?)", 1, 2); err == nil {
			t.Error("claim over two rows: no error")
		}
		if got := taken(t, d, "co_events", "taken", 1); got != 1 {
			t.Errorf("taken after a refused claim over two rows = %d; want 1", got)
		}
		if err := back(events, 2, "id = ?", 1); err == nil {
			t.Error("giving back more than was taken: no error (the CHECK must refuse)")
		}
		if err := claim(events, 2, "id = ?", 1); err != nil {
			t.Errorf("claim the 2 given back: %v", err)
		}
		// A code with no maximum never runs out; one with one use does.
		for range 5 {
			if err := claim(codes, 1, "id = ?", 1); err != nil {
				t.Fatalf("use of an unlimited code: %v", err)
			}
		}
		if left, limited, err := codes.Left(ctx, d, "id = ?", 1); err != nil || limited {
			t.Errorf("Left of an unlimited code = %d, %v, %v; want no limit", left, limited, err)
		}
		if err := claim(codes, 1, "id = ?", 2); err != nil {
			t.Fatalf("the one use: %v", err)
		}
		if err := claim(codes, 1, "id = ?", 2); !errors.Is(err, checkout.ErrNoStock) {
			t.Errorf("a second use: %v; want ErrNoStock", err)
		}
		if _, _, err := codes.Left(ctx, d, "id = ?", 42); !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("Left of no row: %v; want ErrNotFound", err)
		}
	})
}

// TestStockDays is rent's use: a rental takes every day of its span or
// none.
func TestStockDays(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		dbtest.Exec(t, d, stockTables)
		rent := func(listing int64, span ...string) error {
			return d.WithTx(ctx, func(tx *db.Tx) error {
				for _, day := range span {
					if _, err := tx.Exec(ctx, `INSERT INTO co_days (listing_id, day, units) VALUES (?, ?, 2)
						ON CONFLICT (listing_id, day) DO NOTHING`, listing, day); err != nil {
						return err
					}
					if err := days.Claim(ctx, tx, 1, "listing_id = ? AND day = ?", listing, day); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err := rent(7, "2027-05-01", "2027-05-02"); err != nil {
			t.Fatal(err)
		}
		if err := rent(7, "2027-05-02", "2027-05-03"); err != nil {
			t.Fatal(err)
		}
		// The 2nd is full (2 units): a third rental over it takes nothing.
		if err := rent(7, "2027-05-01", "2027-05-02"); !errors.Is(err, checkout.ErrNoStock) {
			t.Fatalf("a third rental of the 2nd: %v; want ErrNoStock", err)
		}
		for day, want := range map[string]int{"2027-05-01": 1, "2027-05-02": 2, "2027-05-03": 1} {
			var n int
			if err := db.Scan(d.QueryRow(ctx, `SELECT taken FROM co_days WHERE listing_id = 7 AND day = ?`, day), &n); err != nil || n != want {
				t.Errorf("%s: taken %d, %v; want %d", day, n, err, want)
			}
		}
	})
}

// TestStockNeverOversells fires many more claims than units at once, from
// many goroutines, each in its own transaction: exactly the cap succeed.
func TestStockNeverOversells(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		ctx := context.Background()
		const capacity, tries = 25, 200
		dbtest.Exec(t, d, stockTables+fmt.Sprintf(`; INSERT INTO co_events (cap) VALUES (%d)`, capacity))
		var won, refused atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		errc := make(chan error, tries)
		for range tries {
			wg.Go(func() {
				<-start
				err := d.WithTx(ctx, func(tx *db.Tx) error { return events.Claim(ctx, tx, 1, "id = ?", 1) })
				switch {
				case err == nil:
					won.Add(1)
				case errors.Is(err, checkout.ErrNoStock):
					refused.Add(1)
				default:
					errc <- err
				}
			})
		}
		close(start)
		wg.Wait()
		close(errc)
		for err := range errc {
			t.Errorf("claim: %v", err)
		}
		if won.Load() != capacity || refused.Load() != tries-capacity {
			t.Errorf("%d claims won, %d refused; want %d and %d", won.Load(), refused.Load(), capacity, tries-capacity)
		}
		if got := taken(t, d, "co_events", "taken", 1); got != capacity {
			t.Errorf("taken = %d; want %d", got, capacity)
		}
	})
}

func TestNewStockRefusesNames(t *testing.T) {
	for _, name := range []string{"", "race_events; DROP TABLE x", "Taken", "a b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewStock(%q): no panic", name)
				}
			}()
			checkout.NewStock(name, "taken", "cap", false)
		}()
	}
}
