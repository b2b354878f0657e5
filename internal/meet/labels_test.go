package meet

import "testing"

// TestRangeLabelsOnShortAndLongDays: a range's label drops the end's date
// only when the end is on the start's date or is the midnight ending it,
// and the "starting any time" label gives dates when its starts fall on
// two; on days of 23, 23.5 and 25 hours, both ways of each clock change. An
// end at a clock change reads as the clock showed it until then.
func TestRangeLabelsOnShortAndLongDays(t *testing.T) {
	cases := []struct {
		name, zone       string
		from, to         string // UTC: the range
		last             string // UTC: the last start ("" to skip)
		label, startsLbl string
	}{
		// Berlin skips 02:00-03:00 on Sun 29 Mar 2026: 23:00 Sat to 00:00
		// Mon is 24 hours, and ends two dates later (the case).
		{"berlin short day", "Europe/Berlin", "2026-03-28 22:00", "2026-03-29 22:00", "2026-03-29 21:00",
			"Sat 28 Mar, 23:00 – Mon 30 Mar, 00:00", "Sat 28 Mar, 23:00 – Sun 29 Mar, 23:00"},
		{"berlin to midnight", "Europe/Berlin", "2026-03-28 22:00", "2026-03-28 23:00", "2026-03-28 22:45",
			"Sat 28 Mar, 23:00–24:00", "23:00–23:45"},
		{"berlin across the jump", "Europe/Berlin", "2026-03-29 00:00", "2026-03-29 02:00", "2026-03-29 01:00",
			"Sun 29 Mar, 01:00–04:00", "01:00–03:00"},
		// Berlin repeats 02:00-03:00 on Sun 25 Oct 2026: that whole day is
		// 25 hours, still one date.
		{"berlin long day whole", "Europe/Berlin", "2026-10-24 22:00", "2026-10-25 23:00", "",
			"Sun 25 Oct, 00:00–24:00", ""},
		{"berlin long day into the next", "Europe/Berlin", "2026-10-24 21:00", "2026-10-25 23:00", "2026-10-25 22:00",
			"Sat 24 Oct, 23:00 – Mon 26 Oct, 00:00", "Sat 24 Oct, 23:00 – Sun 25 Oct, 23:00"},
		{"berlin starts in both passes", "Europe/Berlin", "2026-10-25 00:00", "2026-10-25 01:45", "2026-10-25 01:15",
			"Sun 25 Oct, 02:00 (UTC+2)–02:45 (UTC+1)", "02:00 (UTC+2)–02:15 (UTC+1)"},
		// New York skips 02:00-03:00 on Sun 14 Mar 2027 and repeats
		// 01:00-02:00 on Sun 7 Nov 2027.
		{"new york short day", "America/New_York", "2027-03-14 04:00", "2027-03-15 04:00", "2027-03-15 03:00",
			"Sat 13 Mar, 23:00 – Mon 15 Mar, 00:00", "Sat 13 Mar, 23:00 – Sun 14 Mar, 23:00"},
		{"new york long day", "America/New_York", "2027-11-07 04:00", "2027-11-08 05:00", "2027-11-08 04:00",
			"Sun 7 Nov, 00:00–24:00", "00:00–23:00"},
		// Santiago jumps at midnight: 00:00-01:00 of Sun 6 Sep 2026 never
		// shows, and 23:00-24:00 of Sat 3 Apr 2027 shows twice.
		{"santiago to the skipped midnight", "America/Santiago", "2026-09-06 03:00", "2026-09-06 04:00", "2026-09-06 03:45",
			"Sat 5 Sep, 23:00–24:00", "23:00–23:45"},
		// An end at which the clock changes reads as the clock showed it
		// until then, with the offset where the clock then shows it again.
		{"new york to the spring jump", "America/New_York", "2027-03-14 06:30", "2027-03-14 07:00", "",
			"Sun 14 Mar, 01:30–02:00", ""},
		{"new york first pass to the set-back", "America/New_York", "2026-11-01 05:00", "2026-11-01 06:00", "",
			"Sun 1 Nov, 01:00 (UTC−4)–02:00 (UTC−4)", ""},
		{"santiago first pass to the set-back at midnight", "America/Santiago", "2027-04-04 02:45", "2027-04-04 03:00", "",
			"Sat 3 Apr, 23:45 (UTC−3)–24:00 (UTC−3)", ""},
		{"santiago second pass", "America/Santiago", "2027-04-04 03:45", "2027-04-04 04:00", "",
			"Sat 3 Apr, 23:45 (UTC−4)–24:00", ""},
		{"santiago short day", "America/Santiago", "2026-09-06 02:00", "2026-09-07 03:00", "2026-09-07 02:00",
			"Sat 5 Sep, 22:00 – Mon 7 Sep, 00:00", "Sat 5 Sep, 22:00 – Sun 6 Sep, 23:00"},
		{"santiago repeated midnight", "America/Santiago", "2027-04-04 02:00", "2027-04-04 04:00", "2027-04-04 03:45",
			"Sat 3 Apr, 23:00 (UTC−3)–24:00", "23:00 (UTC−3)–23:45 (UTC−4)"},
		// Lord Howe moves its clock by 30 minutes: 02:00-02:30 skipped on
		// Sun 4 Oct 2026, 01:30-02:00 repeated on Sun 4 Apr 2027.
		{"lord howe short day", "Australia/Lord_Howe", "2026-10-03 12:30", "2026-10-04 13:00", "2026-10-04 12:00",
			"Sat 3 Oct, 23:00 – Mon 5 Oct, 00:00", "Sat 3 Oct, 23:00 – Sun 4 Oct, 23:00"},
		{"lord howe long day", "Australia/Lord_Howe", "2027-04-03 13:00", "2027-04-04 13:30", "",
			"Sun 4 Apr, 00:00–24:00", ""},
		{"lord howe long day into the next", "Australia/Lord_Howe", "2027-04-03 12:00", "2027-04-04 13:30", "",
			"Sat 3 Apr, 23:00 – Mon 5 Apr, 00:00", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			loc := mustZone(t, c.zone)
			if got := fmtRange(utcAt(t, c.from), utcAt(t, c.to), loc); got != c.label {
				t.Errorf("fmtRange = %q; want %q", got, c.label)
			}
			if c.last == "" {
				return
			}
			if got := fmtStarts(utcAt(t, c.from), utcAt(t, c.last), loc); got != c.startsLbl {
				t.Errorf("fmtStarts = %q; want %q", got, c.startsLbl)
			}
		})
	}
}
