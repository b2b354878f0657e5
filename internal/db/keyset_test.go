package db

import (
	"testing"
	"time"
)

func TestCursorRoundTrip(t *testing.T) {
	at := time.Date(2030, 3, 4, 5, 6, 7, 123000, time.UTC)
	for _, c := range []Cursor{{ID: 1}, {ID: 1 << 40}, {At: at, ID: 42}} {
		if got := ParseCursor(c.String()); got != c {
			t.Errorf("ParseCursor(%q) = %+v; want %+v", c.String(), got, c)
		}
	}
	for _, bad := range []string{"", "!!", "MA", "LTE", "YS5iLmM", "eiE"} {
		if got := ParseCursor(bad); !got.IsZero() {
			t.Errorf("ParseCursor(%q) = %+v; want zero", bad, got)
		}
	}
	rows, next := Trim([]int64{9, 8, 7, 6}, 3, func(id int64) Cursor { return Cursor{ID: id} })
	if len(rows) != 3 || next.ID != 7 {
		t.Errorf("Trim = %v, %+v; want 3 rows and cursor 7", rows, next)
	}
	if _, next := Trim([]int64{9}, 3, func(id int64) Cursor { return Cursor{ID: id} }); !next.IsZero() {
		t.Errorf("last page has a next cursor")
	}
}
