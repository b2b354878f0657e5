package race

import (
	"github.com/tutti-dev/tutti/internal/race/races"
	"testing"
	"time"
)

// TestOpenings: while one event is open nobody waits for another's
// opening; before any, the next opening is waited for.
func TestOpenings(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	open := Event{OpensAt: now.Add(-24 * time.Hour), ClosesAt: now.Add(24 * time.Hour)}
	closed := Event{OpensAt: now.Add(-48 * time.Hour), ClosesAt: now.Add(-time.Hour)}
	later := Event{OpensAt: now.Add(7 * 24 * time.Hour), ClosesAt: now.Add(30 * 24 * time.Hour)}
	for _, tc := range []struct {
		events     []Event
		last, next time.Time
	}{
		{[]Event{open, later}, open.OpensAt, time.Time{}},
		{[]Event{closed, later}, closed.OpensAt, later.OpensAt},
		{[]Event{later}, time.Time{}, later.OpensAt},
	} {
		last, next := openings(&Race{Race: races.Race{Events: tc.events}}, now)
		if !last.Equal(tc.last) || !next.Equal(tc.next) {
			t.Errorf("openings(%v) = %v, %v; want %v, %v", tc.events, last, next, tc.last, tc.next)
		}
	}
}
