package auth

import (
	"testing"
	"time"

	"github.com/alexedwards/scs/v2"
)

// The session codec round-trips tutti's sessions, reads the gob sessions
// written before it, hands anything but int64 values to gob, and refuses
// damaged bytes rather than reading past them.
func TestSessionCodec(t *testing.T) {
	c := sessionCodec{}
	dl := time.Date(2026, 11, 24, 7, 0, 0, 123, time.UTC)
	vals := map[string]any{keyUID: int64(42), keyGen: int64(-3), keySeen: int64(1795510000)}
	b, err := c.Encode(dl, vals)
	if err != nil {
		t.Fatal(err)
	}
	if b[0] != codecTag || len(b) > 40 {
		t.Errorf("encoding %x (%d bytes); want the compact form", b, len(b))
	}
	gotDL, got, err := c.Decode(b)
	if err != nil || !gotDL.Equal(dl) || len(got) != 3 || got[keyUID] != int64(42) || got[keyGen] != int64(-3) || got[keySeen] != int64(1795510000) {
		t.Errorf("round trip: %v %v %v; want %v %v", gotDL, got, err, dl, vals)
	}

	old, err := scs.GobCodec{}.Encode(dl, vals)
	if err != nil {
		t.Fatal(err)
	}
	if _, got, err := c.Decode(old); err != nil || got[keyUID] != int64(42) {
		t.Errorf("a gob session from before: %v %v; want it read", got, err)
	}
	mixed := map[string]any{keyUID: int64(7), "note": "hello"}
	b, err = c.Encode(dl, mixed)
	if err != nil || b[0] == codecTag {
		t.Fatalf("a string value: %x %v; want gob", b, err)
	}
	if _, got, err := c.Decode(b); err != nil || got["note"] != "hello" || got[keyUID] != int64(7) {
		t.Errorf("a gob session with a string: %v %v", got, err)
	}

	good, _ := c.Encode(dl, vals)
	for name, bad := range map[string][]byte{
		"cut":           good[:len(good)-1],
		"trailing":      append(append([]byte{}, good...), 1),
		"huge count":    {codecTag, 2, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"key past end":  {codecTag, 2, 1, 0x7f, 'a'},
		"only the tag":  {codecTag},
		"value missing": {codecTag, 2, 1, 1, 'a'},
	} {
		if _, _, err := c.Decode(bad); err == nil {
			t.Errorf("%s: decoded %x; want an error", name, bad)
		}
	}
}

// FuzzSessionCodec: whatever a store hands back, Decode returns or errs
// without panicking, and what it decodes encodes back to the same values.
func FuzzSessionCodec(f *testing.F) {
	good, _ := sessionCodec{}.Encode(time.Unix(1, 2), map[string]any{keyUID: int64(1)})
	f.Add(good)
	f.Add([]byte{codecTag, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != codecTag {
			return // gob's own
		}
		dl, vals, err := sessionCodec{}.Decode(b)
		if err != nil {
			return
		}
		again, err := sessionCodec{}.Encode(dl, vals)
		if err != nil {
			t.Fatal(err)
		}
		dl2, vals2, err := sessionCodec{}.Decode(again)
		if err != nil || !dl2.Equal(dl) || len(vals2) != len(vals) {
			t.Fatalf("re-encoded %x: %v %v %v", again, dl2, vals2, err)
		}
		for k, v := range vals {
			if vals2[k] != v {
				t.Fatalf("key %q: %v then %v", k, v, vals2[k])
			}
		}
	})
}
