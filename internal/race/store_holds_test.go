package race

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/db"
	"github.com/tutti-dev/tutti/internal/db/dbtest"
	"github.com/tutti-dev/tutti/internal/errs"
	"github.com/tutti-dev/tutti/internal/pay"
)

// TestHoldReadsFollowEveryWrite: a runner's hold, read before and after
// each kind of write, is what the database holds, although embedded mode
// keeps the holds it reads in memory: a director's price change (a
// statement over the event's holds), the payment, the registration
// writer, the sweep of expired holds, an account's deletion (a cascade).
// Run with any of those writes not dropping what it changed, it fails.
func TestHoldReadsFollowEveryWrite(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, d *db.DB) {
		f := newFixture(t, d, 10, 3000)
		if d.Dialect == db.SQLite && f.a.store.holds == nil {
			t.Fatal("embedded mode keeps no holds in memory")
		}
		ctx := context.Background()
		read := func(id string) *Hold {
			t.Helper()
			h, err := f.a.store.Hold(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return h
		}
		ann, h := f.holdWithCode(CodeInput{Code: "CLUB", Percent: "20"}, "CLUB")
		if got := read(h.ID); got.Discount != 600 || got.Step < stepWaiver {
			t.Fatalf("after the code: discount %d, step %d; want 600, past the waiver", got.Discount, got.Step)
		}
		dir := f.director()
		in := eventInput(dir.Race, &dir.Race.Events[0])
		in.Price = "50.00"
		if err := f.a.svc.UpdateEvent(ctx, dir, f.event().ID, in); err != nil {
			t.Fatal(err)
		}
		if got := read(h.ID); got.Discount != 1000 {
			t.Fatalf("after the price change: discount %d; want 1000", got.Discount)
		}
		if err := f.pay(ctx, ann, h, pay.CardPaid); err != nil {
			t.Fatal(err)
		}
		if got := read(h.ID); got.Status != checkout.Paid && got.Status != checkout.Done {
			t.Fatalf("after paying: %s; want paid", got.Status)
		}
		f.drain()
		if got := read(h.ID); got.Status != checkout.Done {
			t.Fatalf("after the writer: %s; want done", got.Status)
		}

		bo := f.user()
		hb, err := f.a.svc.Start(ctx, bo, f.race, f.event().ID)
		if err != nil {
			t.Fatal(err)
		}
		if got := read(hb.ID); got.Status != checkout.Held {
			t.Fatalf("bo's new hold: %s; want open", got.Status)
		}
		f.clock.Add(21 * time.Minute)
		f.a.svc.writer.sweep()
		if got := read(hb.ID); got.Status != checkout.Released {
			t.Fatalf("bo's hold after the sweep: %s; want released", got.Status)
		}

		// bo's account goes, and his released hold with it: no release
		// names it.
		if err := f.deleteAccount(bo); err != nil {
			t.Fatal(err)
		}
		if _, err := f.a.store.Hold(ctx, hb.ID); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("bo's hold after his account went: %v; want not found", err)
		}
	}, sets()...)
}
