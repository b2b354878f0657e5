package load

import (
	"strings"
	"testing"
	"time"
)

// A scenario's options: given ones read and checked, missing ones their
// default, bad ones refused with the option named.
func TestOptions(t *testing.T) {
	o := Options{Params: map[string]string{"n": "7", "neg": "-1", "f": "2.5", "zero": "0", "d": "45s", "r": "5s-1m", "bad": "x", "back": "9s-3s"}}
	if n, err := o.Int("n", 1, 0); n != 7 || err != nil {
		t.Errorf("n: %d %v", n, err)
	}
	if n, err := o.Int("missing", 3, 1); n != 3 || err != nil {
		t.Errorf("default: %d %v", n, err)
	}
	if f, err := o.Float("f", 1); f != 2.5 || err != nil {
		t.Errorf("f: %v %v", f, err)
	}
	if d, err := o.Duration("d", time.Second); d != 45*time.Second || err != nil {
		t.Errorf("d: %v %v", d, err)
	}
	if r, err := o.Range("r", "1s-2s"); r != [2]time.Duration{5 * time.Second, time.Minute} || err != nil {
		t.Errorf("r: %v %v", r, err)
	}
	if r, err := o.Range("missing", "1s-2s"); r != [2]time.Duration{time.Second, 2 * time.Second} || err != nil {
		t.Errorf("range default: %v %v", r, err)
	}
	for name, err := range map[string]error{
		"neg":  second(o.Int("neg", 0, 0)),
		"bad":  second(o.Int("bad", 0, 0)),
		"zero": second(o.Float("zero", 1)),
		"back": second(o.Range("back", "1s-2s")),
		"n":    second(o.Duration("n", time.Second)), // a number without a unit
	} {
		if err == nil || !strings.Contains(err.Error(), "option "+name+"=") {
			t.Errorf("%s: %v; want a refusal naming it", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// A misspelt option is found rather than ignored; true and false read as
// such (assets=false once turned assets on).
func TestOptionsUnreadAndBool(t *testing.T) {
	o := Options{Params: map[string]string{"runners": "5", "runner": "50000", "assets": "false", "x": "maybe"}}.Noting()
	if n, _ := o.Int("runners", 1, 1); n != 5 {
		t.Errorf("runners %d", n)
	}
	if b, err := o.Bool("assets", true); b || err != nil {
		t.Errorf("assets=false: %v %v", b, err)
	}
	if b, err := o.Bool("missing", true); !b || err != nil {
		t.Errorf("default: %v %v", b, err)
	}
	if _, err := o.Bool("x", false); err == nil || !strings.Contains(err.Error(), "option x=") {
		t.Errorf("x=maybe: %v; want a refusal naming it", err)
	}
	if got := o.Unread(); len(got) != 1 || got[0] != "runner" {
		t.Errorf("unread %v; want [runner]", got)
	}
}
