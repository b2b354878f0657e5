package checkout_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/tutti-dev/tutti/internal/checkout"
	"github.com/tutti-dev/tutti/internal/errs"
)

// TestTransitions checks the whole table: every pair of states, allowed
// or refused as a purchase's life says.
func TestTransitions(t *testing.T) {
	allowed := map[[2]checkout.State]bool{
		{checkout.Held, checkout.Paying}:   true,
		{checkout.Held, checkout.Released}: true,
		{checkout.Paying, checkout.Paid}:   true,
		{checkout.Paying, checkout.Held}:   true,
		{checkout.Paying, checkout.Paying}: true,
		{checkout.Paid, checkout.Done}:     true,
		{checkout.Paid, checkout.Refunded}: true,
		{checkout.Done, checkout.Refunded}: true,
		{checkout.Released, checkout.Held}: true,
	}
	for _, from := range checkout.States {
		for _, to := range checkout.States {
			want := allowed[[2]checkout.State{from, to}]
			if got := from.CanMove(to); got != want {
				t.Errorf("%s -> %s allowed: %v; want %v", from.Name(), to.Name(), got, want)
			}
			got, err := from.To(to)
			switch {
			case want && (err != nil || got != to):
				t.Errorf("%s.To(%s) = %s, %v; want %s", from.Name(), to.Name(), got, err, to.Name())
			case !want && (!errors.Is(err, checkout.ErrTransition) || errs.KindOf(err) != errs.Conflict || got != from):
				t.Errorf("%s.To(%s) = %s, %v; want ErrTransition (a conflict), unmoved", from.Name(), to.Name(), got, err)
			}
		}
	}
	// Nothing moves a refunded purchase; a done one only to refunded.
	if !checkout.Refunded.Final() || !checkout.Done.Final() || checkout.Paid.Final() {
		t.Error("Final is wrong")
	}
	for _, s := range checkout.States {
		if live := s == checkout.Held || s == checkout.Paying || s == checkout.Paid; s.Live() != live {
			t.Errorf("%s.Live() = %v; want %v", s.Name(), s.Live(), live)
		}
	}
}

func TestMove(t *testing.T) {
	m := checkout.MustMove(checkout.Paying, checkout.Held, checkout.Paying)
	if got := m.Set("status"); got != "status = 'paying'" {
		t.Errorf("Set = %q", got)
	}
	if got := m.Where("h.status"); got != "h.status IN ('open', 'paying')" {
		t.Errorf("Where = %q", got)
	}
	if got := checkout.MustMove(checkout.Paid, checkout.Paying).Where("status"); got != "status = 'paying'" {
		t.Errorf("Where of one = %q", got)
	}
	for _, bad := range [][]checkout.State{{checkout.Done, checkout.Held}, {checkout.Held, checkout.Done}, {checkout.Paid}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("MustMove(%v): no panic", bad)
				}
			}()
			checkout.MustMove(bad[0], bad[1:]...)
		}()
	}
}

func TestStateScan(t *testing.T) {
	for _, s := range checkout.States {
		var got checkout.State
		v, _ := s.Value()
		if err := got.Scan(v); err != nil || got != s {
			t.Errorf("Scan(%v) = %q, %v; want %q", v, got, err, s)
		}
		if err := got.Scan([]byte(fmt.Sprint(v))); err != nil || got != s {
			t.Errorf("Scan([]byte %v) = %q, %v", v, got, err)
		}
	}
	var s checkout.State
	for _, v := range []any{"held", "cancelled", "", 3} {
		if err := s.Scan(v); err == nil {
			t.Errorf("Scan(%v): no error", v)
		}
	}
	if got := checkout.Held.Name(); got != "held" {
		t.Errorf("Held.Name() = %q", got)
	}
}
