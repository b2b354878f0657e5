package walltime

import (
	"testing"
	"time"
)

// A zone is read once and then shared; a name that does not load is an
// error and is not kept.
func TestLocationLoadsEachZoneOnce(t *testing.T) {
	a, err := Location("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Location("Europe/Berlin")
	if err != nil || a != b {
		t.Fatalf("second load: %p, %v; want the first, %p", b, err, a)
	}
	if a.String() != "Europe/Berlin" {
		t.Errorf("loaded %s", a)
	}
	for _, bad := range []string{"Europe/Nowhere", "../../etc/passwd", "/etc/localtime", "Europe/Berlin\x00"} {
		if loc, err := Location(bad); err == nil {
			t.Errorf("%q loaded as %v", bad, loc)
		}
		if _, kept := zones.Load(bad); kept {
			t.Errorf("%q kept", bad)
		}
	}
}

func BenchmarkLocation(b *testing.B) {
	for b.Loop() {
		if _, err := Location("America/New_York"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadLocation(b *testing.B) {
	for b.Loop() {
		if _, err := time.LoadLocation("America/New_York"); err != nil {
			b.Fatal(err)
		}
	}
}
