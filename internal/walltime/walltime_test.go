package walltime_test

import (
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/tutti-dev/tutti/internal/walltime"
)

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("zone %s: %v", name, err)
	}
	return loc
}

func utcAt(t testing.TB, s string) time.Time {
	t.Helper()
	u, err := time.Parse("2006-01-02 15:04", s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestAt checks the one rule over every kind of transition: an hour
// forward and back, east and west of UTC, a 30-minute shift, a skipped and a
// repeated midnight.
func TestAt(t *testing.T) {
	cases := []struct {
		zone, date, clock string
		want              string // UTC
		kind              walltime.Kind
	}{
		// New York (west), forward 02:00 -> 03:00 on 2027-03-14.
		{"America/New_York", "2027-03-14", "01:30", "2027-03-14 06:30", walltime.Exact},
		{"America/New_York", "2027-03-14", "02:00", "2027-03-14 07:00", walltime.Skipped},
		{"America/New_York", "2027-03-14", "02:15", "2027-03-14 07:00", walltime.Skipped},
		{"America/New_York", "2027-03-14", "02:45", "2027-03-14 07:00", walltime.Skipped},
		{"America/New_York", "2027-03-14", "03:00", "2027-03-14 07:00", walltime.Exact},
		// New York, back 02:00 -> 01:00 on 2026-11-01: the first 01:30 is EDT.
		{"America/New_York", "2026-11-01", "00:45", "2026-11-01 04:45", walltime.Exact},
		{"America/New_York", "2026-11-01", "01:00", "2026-11-01 05:00", walltime.Repeated},
		{"America/New_York", "2026-11-01", "01:30", "2026-11-01 05:30", walltime.Repeated},
		{"America/New_York", "2026-11-01", "02:00", "2026-11-01 07:00", walltime.Exact},
		// Berlin (east), forward 02:00 -> 03:00 on 2027-03-28.
		{"Europe/Berlin", "2027-03-28", "01:45", "2027-03-28 00:45", walltime.Exact},
		{"Europe/Berlin", "2027-03-28", "02:45", "2027-03-28 01:00", walltime.Skipped},
		{"Europe/Berlin", "2027-03-28", "04:45", "2027-03-28 02:45", walltime.Exact},
		// Berlin, back 03:00 -> 02:00 on 2027-10-31: the first 02:00 is CEST.
		{"Europe/Berlin", "2027-10-31", "02:00", "2027-10-31 00:00", walltime.Repeated},
		{"Europe/Berlin", "2027-10-31", "02:45", "2027-10-31 00:45", walltime.Repeated},
		{"Europe/Berlin", "2027-10-31", "03:00", "2027-10-31 02:00", walltime.Exact},
		// Sydney (east, southern hemisphere), back 03:00 -> 02:00 on 2027-04-04.
		{"Australia/Sydney", "2027-04-04", "02:30", "2027-04-03 15:30", walltime.Repeated},
		{"Australia/Sydney", "2027-10-03", "02:30", "2027-10-02 16:00", walltime.Skipped},
		// Lord Howe: 30-minute shifts. Back 02:00 -> 01:30 on 2027-04-04
		// (+11 -> +10:30); forward 02:00 -> 02:30 on 2026-10-04.
		{"Australia/Lord_Howe", "2027-04-04", "01:15", "2027-04-03 14:15", walltime.Exact},
		{"Australia/Lord_Howe", "2027-04-04", "01:30", "2027-04-03 14:30", walltime.Repeated},
		{"Australia/Lord_Howe", "2027-04-04", "01:45", "2027-04-03 14:45", walltime.Repeated},
		{"Australia/Lord_Howe", "2027-04-04", "02:00", "2027-04-03 15:30", walltime.Exact},
		{"Australia/Lord_Howe", "2026-10-04", "02:15", "2026-10-03 15:30", walltime.Skipped},
		{"Australia/Lord_Howe", "2026-10-04", "02:30", "2026-10-03 15:30", walltime.Exact},
		// Santiago: midnight skipped on 2026-09-06 (00:00 -> 01:00, -4 -> -3),
		// repeated hour before midnight on 2027-04-03 (24:00 -> 23:00).
		{"America/Santiago", "2026-09-06", "00:00", "2026-09-06 04:00", walltime.Skipped},
		{"America/Santiago", "2026-09-06", "00:30", "2026-09-06 04:00", walltime.Skipped},
		{"America/Santiago", "2026-09-05", "24:00", "2026-09-06 04:00", walltime.Skipped},
		{"America/Santiago", "2026-09-05", "23:45", "2026-09-06 03:45", walltime.Exact},
		{"America/Santiago", "2026-09-06", "01:00", "2026-09-06 04:00", walltime.Exact},
		{"America/Santiago", "2027-04-03", "23:30", "2027-04-04 02:30", walltime.Repeated},
		{"America/Santiago", "2027-04-03", "24:00", "2027-04-04 04:00", walltime.Exact},
		// Samoa skipped a whole day, 2011-12-30 (-10 -> +14).
		{"Pacific/Apia", "2011-12-30", "12:00", "2011-12-30 10:00", walltime.Skipped},
		{"Pacific/Apia", "2011-12-29", "23:45", "2011-12-30 09:45", walltime.Exact},
		{"Pacific/Apia", "2011-12-31", "00:00", "2011-12-30 10:00", walltime.Exact},
		// No transition near.
		{"UTC", "2027-03-14", "24:00", "2027-03-15 00:00", walltime.Exact},
		{"Asia/Kolkata", "2027-03-14", "09:15", "2027-03-14 03:45", walltime.Exact},
	}
	for _, c := range cases {
		t.Run(c.zone+" "+c.date+" "+c.clock, func(t *testing.T) {
			loc := mustZone(t, c.zone)
			d, _ := time.Parse(time.DateOnly, c.date)
			m, ok := walltime.ParseClock(c.clock)
			if !ok {
				t.Fatalf("bad clock %s", c.clock)
			}
			got, kind := walltime.On(d, m, loc)
			if !got.Equal(utcAt(t, c.want)) || kind != c.kind {
				t.Errorf("At = %s UTC (%s), kind %d; want %s UTC, kind %d",
					got.UTC().Format("2006-01-02 15:04"), got.Format("15:04 MST"), kind, c.want, c.kind)
			}
		})
	}
}

// TestWallTimeProperties checks the rule around every transition of 2026 to
// 2028 in every zone of the switcher: a wall time that occurs maps to an
// instant showing it, the first such; one that does not maps to the jump.
func TestAtProperties(t *testing.T) {
	from, to := utcAt(t, "2026-01-01 00:00"), utcAt(t, "2029-01-01 00:00")
	transitions := 0
	for _, name := range append(walltime.ZoneChoices("Australia/Lord_Howe", "Pacific/Chatham", "Asia/Kathmandu"), "Pacific/Apia") {
		loc := mustZone(t, name)
		for u := from; u.Before(to); {
			_, end := u.In(loc).ZoneBounds()
			if end.IsZero() || !end.Before(to) {
				break
			}
			tr := end // a transition
			transitions++
			for v := tr.Add(-4 * time.Hour); v.Before(tr.Add(4 * time.Hour)); v = v.Add(15 * time.Minute) {
				l := v.In(loc)
				got, kind := walltime.At(l.Year(), l.Month(), l.Day(), l.Hour()*60+l.Minute(), loc)
				if g := got.In(loc); g.Format("2006-01-02 15:04") != l.Format("2006-01-02 15:04") || got.After(v) || (got.Before(v) && kind != walltime.Repeated) {
					t.Errorf("%s: wall %s (at %s UTC) -> %s UTC kind %d", name, l.Format("2006-01-02 15:04"), v.UTC().Format("15:04"), got.UTC().Format("2006-01-02 15:04"), kind)
				}
			}
			_, before := tr.Add(-time.Second).In(loc).Zone()
			_, after := tr.In(loc).Zone()
			for w := tr.In(time.FixedZone("", before)); w.Before(tr.Add(time.Duration(after-before) * time.Second).In(time.FixedZone("", before))); w = w.Add(15 * time.Minute) {
				got, kind := walltime.At(w.Year(), w.Month(), w.Day(), w.Hour()*60+w.Minute(), loc)
				if !got.Equal(tr) || kind != walltime.Skipped {
					t.Errorf("%s: skipped wall %s -> %s UTC kind %d; want the jump at %s UTC", name, w.Format("2006-01-02 15:04"), got.UTC().Format("15:04"), kind, tr.UTC().Format("15:04"))
				}
			}
			u = end
		}
	}
	if transitions < 100 {
		t.Errorf("%d transitions checked; want the zones' many", transitions)
	}
	t.Logf("%d transitions checked", transitions)
}
