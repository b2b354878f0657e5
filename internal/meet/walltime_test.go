package meet

import (
	"strings"
	"testing"
	"time"
	_ "time/tzdata"
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

// TestSlotsAroundClockChanges checks the daily window on transition days.
func TestSlotsAroundClockChanges(t *testing.T) {
	cases := []struct {
		name                string
		poll                Poll
		slots               int
		firstUTC, finishUTC string // first slot's start, last slot's end
	}{
		// Berlin skips 02:00-03:00 on 2027-03-28: 02:45-04:45 is 03:00-04:45.
		{"berlin forward, start skipped", Poll{StartDate: "2027-03-28", EndDate: "2027-03-28", DayStart: 2*60 + 45, DayEnd: 4*60 + 45, TZ: "Europe/Berlin"},
			7, "2027-03-28 01:00", "2027-03-28 02:45"},
		// New York skips 02:00-03:00 on 2027-03-14: 01:00-04:00 is 2 hours.
		{"new york forward", Poll{StartDate: "2027-03-14", EndDate: "2027-03-14", DayStart: 60, DayEnd: 4 * 60, TZ: "America/New_York"},
			8, "2027-03-14 06:00", "2027-03-14 08:00"},
		// New York repeats 01:00-02:00 on 2026-11-01: 00:00-03:00 is 4 hours.
		{"new york back", Poll{StartDate: "2026-11-01", EndDate: "2026-11-01", DayStart: 0, DayEnd: 3 * 60, TZ: "America/New_York"},
			16, "2026-11-01 04:00", "2026-11-01 08:00"},
		// Lord Howe repeats 01:30-02:00 on 2027-04-04: both passes, an hour.
		{"lord howe back 30 minutes", Poll{StartDate: "2027-04-04", EndDate: "2027-04-04", DayStart: 90, DayEnd: 120, TZ: "Australia/Lord_Howe"},
			4, "2027-04-03 14:30", "2027-04-03 15:30"},
		// Lord Howe skips 02:00-02:30 on 2026-10-04: 01:00-03:00 is 90 minutes.
		{"lord howe forward 30 minutes", Poll{StartDate: "2026-10-04", EndDate: "2026-10-04", DayStart: 60, DayEnd: 180, TZ: "Australia/Lord_Howe"},
			6, "2026-10-03 14:30", "2026-10-03 16:00"},
		// Santiago skips Sunday 00:00-01:00 on 2026-09-06: that window is
		// empty on Sunday; Saturday's 00:00-01:00 is still there.
		{"santiago skipped midnight window", Poll{StartDate: "2026-09-05", EndDate: "2026-09-06", DayStart: 0, DayEnd: 60, TZ: "America/Santiago"},
			4, "2026-09-05 04:00", "2026-09-05 05:00"},
		// Saturday 20:00-24:00 ends when Sunday's 00:00 would be: 23:45 + 15.
		{"santiago window to 24:00", Poll{StartDate: "2026-09-05", EndDate: "2026-09-05", DayStart: 20 * 60, DayEnd: 24 * 60, TZ: "America/Santiago"},
			16, "2026-09-06 00:00", "2026-09-06 04:00"},
		// Santiago repeats 23:00-24:00 on Saturday 2027-04-03: 22:00-24:00 is 3 hours.
		{"santiago repeated hour before midnight", Poll{StartDate: "2027-04-03", EndDate: "2027-04-03", DayStart: 22 * 60, DayEnd: 24 * 60, TZ: "America/Santiago"},
			12, "2027-04-04 01:00", "2027-04-04 04:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.poll.Slots()
			if len(s) != c.slots {
				t.Fatalf("%d slots; want %d (%v)", len(s), c.slots, s)
			}
			if !s[0].Equal(utcAt(t, c.firstUTC)) || !s[len(s)-1].Add(Slot).Equal(utcAt(t, c.finishUTC)) {
				t.Errorf("slots %s to %s UTC; want %s to %s", s[0].Format("01-02 15:04"), s[len(s)-1].Add(Slot).Format("01-02 15:04"), c.firstUTC, c.finishUTC)
			}
			for i := 1; i < len(s); i++ {
				if !s[i].Equal(s[i-1].Add(Slot)) {
					t.Errorf("slots not contiguous at %d: %s after %s", i, s[i], s[i-1])
				}
			}
		})
	}
	// A poll on the skipped day alone with the skipped window is refused.
	in := PollInput{Title: "x", StartDate: "2026-09-06", EndDate: "2026-09-06", DayStart: "00:00", DayEnd: "01:00", TZ: "America/Santiago"}
	if _, errs := in.Validate(utcAt(t, "2026-01-01 00:00")); errs["day_start"] == "" {
		t.Errorf("a window that never occurs was accepted: %v", errs)
	}
}

// TestTimeframeAroundClockChanges checks the timeframe form on transition
// days: typed wall times become the instants of the rule.
func TestTimeframeAroundClockChanges(t *testing.T) {
	cases := []struct {
		name, zone, date, start, end string
		from, to                     string // UTC; "" when refused
		field, msg                   string // the refusal
		also                         string // UTC "from|to" of a second piece (slots.go's rule)
	}{
		{"ny end at the jump", "America/New_York", "2027-03-14", "01:30", "02:00", "2027-03-14 06:30", "2027-03-14 07:00", "", "", ""},
		{"ny inside the gap", "America/New_York", "2027-03-14", "02:15", "02:45", "", "", "start", "go forward from 02:00 to 03:00: 02:15–02:45 does not exist", ""},
		{"ny start in the gap", "America/New_York", "2027-03-14", "02:30", "03:30", "2027-03-14 07:00", "2027-03-14 07:30", "", "", ""},
		// 01:00-01:30 shows twice: both passes (to give one, paint the grid).
		{"ny repeated, both passes", "America/New_York", "2026-11-01", "01:00", "01:30", "2026-11-01 05:00", "2026-11-01 05:30", "", "", "2026-11-01 06:00|2026-11-01 06:30"},
		{"ny across the repeat", "America/New_York", "2026-11-01", "00:30", "02:00", "2026-11-01 04:30", "2026-11-01 07:00", "", "", ""},
		{"berlin gap end", "Europe/Berlin", "2027-03-28", "01:30", "02:30", "2027-03-28 00:30", "2027-03-28 01:00", "", "", ""},
		{"berlin inside the gap", "Europe/Berlin", "2027-03-28", "02:00", "02:45", "", "", "start", "02:00–02:45 does not exist", ""},
		{"lord howe both passes", "Australia/Lord_Howe", "2027-04-04", "01:30", "02:00", "2027-04-03 14:30", "2027-04-03 15:30", "", "", ""},
		{"santiago to midnight", "America/Santiago", "2026-09-05", "23:00", "24:00", "2026-09-06 03:00", "2026-09-06 04:00", "", "", ""},
		{"santiago skipped midnight", "America/Santiago", "2026-09-06", "00:00", "00:45", "", "", "start", "go forward from 00:00 to 01:00", ""},
		{"plain backwards", "Europe/Berlin", "2027-03-28", "05:00", "04:00", "", "", "end", "The end must be after the start.", ""},
		// A range beginning or ending inside a repeated hour is the instants
		// whose clock shows it: two pieces, not the time between its ends.
		{"santiago end in the repeated hour", "America/Santiago", "2027-04-03", "23:45", "24:00", "2027-04-04 02:45", "2027-04-04 03:00", "", "", "2027-04-04 03:45|2027-04-04 04:00"},
		{"berlin start in the repeated hour", "Europe/Berlin", "2026-10-25", "02:30", "03:30", "2026-10-25 00:30", "2026-10-25 01:00", "", "", "2026-10-25 01:30|2026-10-25 02:30"},
		{"berlin end in the repeated hour", "Europe/Berlin", "2026-10-25", "01:30", "02:30", "2026-10-24 23:30", "2026-10-25 00:30", "", "", "2026-10-25 01:00|2026-10-25 01:30"},
		{"ny inside the repeated hour", "America/New_York", "2026-11-01", "01:30", "02:00", "2026-11-01 05:30", "2026-11-01 06:00", "", "", "2026-11-01 06:30|2026-11-01 07:00"},
		{"lord howe end in the repeated half hour", "Australia/Lord_Howe", "2027-04-04", "01:00", "01:45", "2027-04-03 14:00", "2027-04-03 14:45", "", "", "2027-04-03 15:00|2027-04-03 15:15"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, _ := time.Parse(time.DateOnly, c.date)
			p := &Poll{StartDate: d.AddDate(0, 0, -1).Format(time.DateOnly), EndDate: d.AddDate(0, 0, 1).Format(time.DateOnly),
				DayStart: 0, DayEnd: 24 * 60, TZ: c.zone}
			tfs, errs := ParseTimeframe(p, c.date, c.start, c.end, "1", c.zone)
			if c.from == "" {
				if !strings.Contains(errs[c.field], c.msg) {
					t.Errorf("errors %v; want %s: %q", errs, c.field, c.msg)
				}
				return
			}
			var got []string
			for _, tf := range tfs {
				got = append(got, tf.Start.UTC().Format("2006-01-02 15:04")+"|"+tf.End.UTC().Format("2006-01-02 15:04"))
			}
			want := []string{c.from + "|" + c.to}
			if c.also != "" {
				want = append(want, c.also)
			}
			if len(errs) != 0 || strings.Join(got, ", ") != strings.Join(want, ", ") {
				t.Errorf("got %v UTC %v; want %v UTC", got, errs, want)
			}
		})
	}
}

// TestDeadlineWallTime: the deadline field follows the same rule.
func TestDeadlineWallTime(t *testing.T) {
	in := PollInput{Title: "x", StartDate: "2027-03-14", EndDate: "2027-03-15", DayStart: "09:00", DayEnd: "17:00",
		TZ: "America/New_York", Deadline: "2027-03-14T02:30"}
	p, errs := in.Validate(utcAt(t, "2027-01-01 00:00"))
	if len(errs) != 0 || p.Deadline == nil || !p.Deadline.Equal(utcAt(t, "2027-03-14 07:00")) {
		t.Errorf("deadline = %v %v; want 2027-03-14 07:00 UTC (03:00 EDT)", p.Deadline, errs)
	}
	in.StartDate, in.EndDate, in.Deadline = "2026-11-01", "2026-11-02", "2026-11-01T01:30"
	p, errs = in.Validate(utcAt(t, "2026-01-01 00:00"))
	if len(errs) != 0 || p.Deadline == nil || !p.Deadline.Equal(utcAt(t, "2026-11-01 05:30")) {
		t.Errorf("deadline = %v %v; want 2026-11-01 05:30 UTC (01:30 EDT, the first)", p.Deadline, errs)
	}
}

// TestLabelsInRepeatedHour: two ranges in a repeated hour read differently
// in the best times, the grid, the cell labels and the CSV.
func TestLabelsInRepeatedHour(t *testing.T) {
	berlin := mustZone(t, "Europe/Berlin")
	first := fmtRange(utcAt(t, "2027-10-31 00:00"), utcAt(t, "2027-10-31 00:30"), berlin)
	second := fmtRange(utcAt(t, "2027-10-31 01:00"), utcAt(t, "2027-10-31 01:30"), berlin)
	if first == second || !strings.Contains(first, "02:00 (UTC+2)") || !strings.Contains(second, "02:00 (UTC+1)") {
		t.Errorf("ranges read %q and %q; want them told apart by UTC+2 and UTC+1", first, second)
	}
	if got, want := fmtRange(utcAt(t, "2027-10-30 08:00"), utcAt(t, "2027-10-30 09:00"), berlin), "Sat 30 Oct, 10:00–11:00"; got != want {
		t.Errorf("plain range = %q; want %q", got, want)
	}
	lh := mustZone(t, "Australia/Lord_Howe")
	if got := fmtRange(utcAt(t, "2027-04-03 14:30"), utcAt(t, "2027-04-03 15:30"), lh); got != "Sun 4 Apr, 01:30 (UTC+11)–02:00" {
		t.Errorf("Lord Howe range = %q; want Sun 4 Apr, 01:30 (UTC+11)–02:00", got)
	}

	// The clocks of "starting any time 02:00–02:15" read apart too.
	if a, b := clockLabel(utcAt(t, "2027-10-31 00:00"), berlin), clockLabel(utcAt(t, "2027-10-31 01:00"), berlin); a != "02:00 (UTC+2)" || b != "02:00 (UTC+1)" {
		t.Errorf("start clocks read %q and %q; want 02:00 (UTC+2) and 02:00 (UTC+1)", a, b)
	}
	if got := clockLabel(utcAt(t, "2027-10-30 08:00"), berlin); got != "10:00" {
		t.Errorf("plain start clock = %q; want 10:00", got)
	}

	p := &Poll{StartDate: "2027-10-31", EndDate: "2027-10-31", DayStart: 60, DayEnd: 4 * 60, TZ: "Europe/Berlin"}
	g := BuildGrid(p.Slots(), berlin)
	var labels []string
	for _, r := range g.Rows {
		labels = append(labels, r.Label)
	}
	want := "01:00|01:15|01:30|01:45|02:00|02:15|02:30|02:45|02:00 (2nd, UTC+1)|02:15 (2nd, UTC+1)|02:30 (2nd, UTC+1)|02:45 (2nd, UTC+1)|03:00|03:15|03:30|03:45"
	if got := strings.Join(labels, "|"); got != want {
		t.Errorf("grid rows\n%s\nwant (the second pass after the first)\n%s", got, want)
	}
	// With the day before (no repeat), the rows keep that order.
	p2 := &Poll{StartDate: "2027-10-30", EndDate: "2027-10-31", DayStart: 60, DayEnd: 4 * 60, TZ: "Europe/Berlin"}
	labels = labels[:0]
	for _, r := range BuildGrid(p2.Slots(), berlin).Rows {
		labels = append(labels, r.Label)
	}
	if got := strings.Join(labels, "|"); got != want {
		t.Errorf("grid rows over two days\n%s\nwant\n%s", got, want)
	}

	var b strings.Builder
	tfs := []Timeframe{
		{ParticipantID: 1, Start: utcAt(t, "2027-10-31 00:00"), End: utcAt(t, "2027-10-31 00:30"), Tier: 1},
		{ParticipantID: 1, Start: utcAt(t, "2027-10-31 01:00"), End: utcAt(t, "2027-10-31 01:30"), Tier: 1},
	}
	if err := WriteCSV(&b, p, []Participant{{ID: 1, Name: "Ada"}}, tfs, berlin); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2027-10-31T02:00:00+02:00,2027-10-31T02:30:00+02:00", "2027-10-31T02:00:00+01:00,2027-10-31T02:30:00+01:00"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("CSV:\n%s\nwants %s", b.String(), want)
		}
	}
}

// TestWindowIn: the poll's daily window as a viewer in another zone reads it.
func TestWindowIn(t *testing.T) {
	cases := []struct {
		start, end string
		from, to   int
		zone, want string
	}{
		{"2027-06-01", "2027-06-03", 9 * 60, 17 * 60, "America/New_York", "= 03:00–11:00 America/New_York"},
		{"2027-06-01", "2027-06-03", 9 * 60, 17 * 60, "Europe/Berlin", ""},
		{"2027-06-01", "2027-06-03", 9 * 60, 24 * 60, "Europe/Paris", ""},
		{"2027-06-01", "2027-06-03", 16 * 60, 24 * 60, "Asia/Tokyo", "= 23:00–07:00 Asia/Tokyo"},
		// New York moves on 14 March, Berlin on 28 March.
		{"2027-03-10", "2027-03-16", 9 * 60, 17 * 60, "America/New_York", "(in America/New_York the hours shift with a daylight-saving change: see the grid)"},
	}
	for _, c := range cases {
		p := &Poll{StartDate: c.start, EndDate: c.end, DayStart: c.from, DayEnd: c.to, TZ: "Europe/Berlin"}
		if got := windowIn(p, c.zone); got != c.want {
			t.Errorf("%s %s-%s in %s: %q; want %q", c.start, fmtMinutes(c.from), fmtMinutes(c.to), c.zone, got, c.want)
		}
	}
}

// TestWindowsByTheWallClock is issue item 15: a daily window is the
// instants whose clock shows a time inside it (slots.go), so a window that
// begins or ends inside a repeated hour comes in pieces rather than the
// real time between its ends, and a meeting crosses midnight only where
// nothing outside the window lies between.
func TestWindowsByTheWallClock(t *testing.T) {
	utcs := func(ts []time.Time) string {
		var s []string
		for _, x := range ts {
			s = append(s, x.UTC().Format("01-02 15:04"))
		}
		return strings.Join(s, " ")
	}
	cases := []struct {
		name  string
		poll  Poll
		slots string // UTC starts
	}{
		// Santiago repeats 23:00-24:00 on Saturday 2027-04-03: 23:45-24:00
		// is 23:45 −03 and 23:45 −04, not the 75 minutes from one to the other.
		{"santiago end in the repeated hour", Poll{StartDate: "2027-04-03", EndDate: "2027-04-03", DayStart: 23*60 + 45, DayEnd: 24 * 60, TZ: "America/Santiago"},
			"04-04 02:45 04-04 03:45"},
		// Berlin repeats 02:00-03:00 on 2026-10-25: 02:30-03:30 is 02:30-03:00
		// CEST, then 02:30-03:30 CET; not 02:00-02:30 CET.
		{"berlin start in the repeated hour", Poll{StartDate: "2026-10-25", EndDate: "2026-10-25", DayStart: 2*60 + 30, DayEnd: 3*60 + 30, TZ: "Europe/Berlin"},
			"10-25 00:30 10-25 00:45 10-25 01:30 10-25 01:45 10-25 02:00 10-25 02:15"},
		// New York repeats 01:00-02:00 on 2026-11-01: 01:30-02:30 is 01:30 EDT to
		// 02:00 EDT, then 01:30 EST to 02:30 EST.
		{"new york start in the repeated hour", Poll{StartDate: "2026-11-01", EndDate: "2026-11-01", DayStart: 90, DayEnd: 150, TZ: "America/New_York"},
			"11-01 05:30 11-01 05:45 11-01 06:30 11-01 06:45 11-01 07:00 11-01 07:15"},
		// Lord Howe repeats 01:30-02:00 on 2027-04-04: 01:00-01:45 is
		// 01:00-01:45 (UTC+11) and 01:30-01:45 (UTC+10:30).
		{"lord howe end in the repeated half hour", Poll{StartDate: "2027-04-04", EndDate: "2027-04-04", DayStart: 60, DayEnd: 105, TZ: "Australia/Lord_Howe"},
			"04-03 14:00 04-03 14:15 04-03 14:30 04-03 15:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := utcs(c.poll.Slots()); got != c.slots {
				t.Errorf("slots (UTC)\n%s\nwant\n%s", got, c.slots)
			}
		})
	}

	// Santiago's window 23:45-24:00: no meeting of an hour fits, by the poll
	// form or by closing it there.
	in := PollInput{Title: "x", StartDate: "2027-04-03", EndDate: "2027-04-03", DayStart: "23:45", DayEnd: "24:00", TZ: "America/Santiago", Duration: "60"}
	if _, errs := in.Validate(utcAt(t, "2027-01-01 00:00")); errs["duration"] == "" {
		t.Errorf("a 1-hour meeting in a window whose clock shows two separate quarter hours was accepted")
	}
	sant := &Poll{StartDate: "2027-04-03", EndDate: "2027-04-03", DayStart: 23*60 + 45, DayEnd: 24 * 60, TZ: "America/Santiago", DurationMinutes: 60}
	if _, _, f := (CloseInput{Choice: "other", Date: "2027-04-03", Time: "23:45", TZ: "America/Santiago"}).Validate(sant); f["duration"] == "" {
		t.Errorf("closing on 23:45 for an hour was accepted: %v", f)
	}
	if _, _, f := (CloseInput{Choice: "other", Date: "2027-04-03", Time: "23:45", TZ: "America/Santiago", Duration: "15"}).Validate(sant); len(f) != 0 {
		t.Errorf("closing on 23:45 for 15 minutes: %v", f)
	}

	// Across midnight: with 00:30-24:00 a meeting runs from Saturday into
	// Sunday only on Santiago's night of 2026-09-05/06, when the clock
	// jumps from 00:00 to 01:00 (over 00:00-00:30, the only time outside the
	// window); on the night before, 00:00-00:30 lies between.
	jump := &Poll{StartDate: "2026-09-04", EndDate: "2026-09-06", DayStart: 30, DayEnd: 24 * 60, TZ: "America/Santiago"}
	if err := jump.CheckRange(utcAt(t, "2026-09-06 03:00"), utcAt(t, "2026-09-06 05:00")); err != nil {
		t.Errorf("Sat 23:00 to Sun 02:00 on the jump night: %v; want accepted (nothing outside the window between)", err)
	}
	if err := jump.CheckRange(utcAt(t, "2026-09-05 03:00"), utcAt(t, "2026-09-05 05:00")); err == nil {
		t.Errorf("Fri 23:00 to Sat 01:00 accepted; 00:00-00:30 is outside the window")
	}
	// With 00:00-24:00 every night runs on.
	whole := &Poll{StartDate: "2026-09-04", EndDate: "2026-09-06", DayStart: 0, DayEnd: 24 * 60, TZ: "America/Santiago"}
	if err := whole.CheckRange(utcAt(t, "2026-09-05 03:00"), utcAt(t, "2026-09-05 05:00")); err != nil {
		t.Errorf("00:00-24:00, Fri 23:00 to Sat 01:00: %v", err)
	}
}
