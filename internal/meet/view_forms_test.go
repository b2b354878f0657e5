package meet

import (
	"slices"
	"testing"
	"time"
)

func TestFormChoices(t *testing.T) {
	if got := durationOptions("60"); !slices.Equal(got, durationChoices) {
		t.Errorf("durationOptions(60) = %v; want the standard choices", got)
	}
	// A length not offered (set through an older form) is kept, in order.
	if got := durationOptions("1005"); !slices.Contains(got, 1005) || !slices.IsSorted(got) {
		t.Errorf("durationOptions(1005) = %v; want 1005 among sorted choices", got)
	}
	for d, want := range map[time.Duration]string{15 * time.Minute: "15 min", time.Hour: "1 h", 90 * time.Minute: "1 h 30 min", 24 * time.Hour: "1 day"} {
		if got := durationLabel(d); got != want {
			t.Errorf("durationLabel(%v) = %q; want %q", d, got, want)
		}
	}
	from, until := clockOptions("09:00", false), clockOptions("17:00", true)
	if len(from) != 96 || from[0] != "00:00" || from[95] != "23:45" || len(until) != 96 || until[0] != "00:15" || until[95] != "24:00" {
		t.Errorf("clock options: from %s..%s (%d), until %s..%s (%d); want 00:00..23:45 and 00:15..24:00", from[0], from[len(from)-1], len(from), until[0], until[len(until)-1], len(until))
	}
	// What was typed is kept even if it is not a quarter hour.
	if got := clockOptions("9:07", false); got[0] != "9:07" || len(got) != 97 {
		t.Errorf("clockOptions(9:07) starts %q (%d); want the typed value first", got[0], len(got))
	}
	if clockValue("9:00", false) != "09:00" {
		t.Errorf("clockValue(9:00) = %q; want 09:00", clockValue("9:00", false))
	}
}
