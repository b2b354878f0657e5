package meet

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

var fuzzNow = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func FuzzPollInput(f *testing.F) {
	f.Add("Team", "", "2030-03-01", "2030-03-03", "09:00", "17:00", "Europe/Berlin", "", "120")
	f.Add(" ", "x", "2030-13-01", "2030-03-03", "9:7", "24:00", "Mars/Base", "2030-02-01T10:00", "7")
	f.Add("T", "d", "2030-03-29", "2030-03-29", "02:00", "03:00", "Europe/Berlin", "2029-01-01T00:00", "")
	f.Add("T", "d", "2030-03-29", "2030-03-30", "00:00", "24:00", "UTC", "", "1440")
	f.Fuzz(func(t *testing.T, title, desc, sd, ed, ds, de, tz, dl, dur string) {
		in := PollInput{title, desc, sd, ed, ds, de, tz, dl, dur}
		p, errs := in.Validate(fuzzNow)
		if len(errs) > 0 {
			return
		}
		if strings.TrimSpace(p.Title) == "" || p.StartDate > p.EndDate || p.DayStart >= p.DayEnd || p.DayStart%15 != 0 || p.DayEnd%15 != 0 {
			t.Fatalf("accepted an invalid poll: %+v", p)
		}
		if _, err := p.Location(); err != nil {
			t.Fatalf("accepted zone %q", p.TZ)
		}
		if len(p.Slots()) == 0 {
			t.Fatalf("accepted a poll without slots: %+v", p)
		}
		if d := p.Duration(); d < MinDuration || d > MaxDuration || d%Slot != 0 || longestRun(p.Slots()) < d {
			t.Fatalf("accepted a meeting of %v that the poll cannot hold: %+v", d, p)
		}
		if p.Deadline != nil && !p.Deadline.After(fuzzNow) {
			t.Fatalf("accepted a past deadline")
		}
		// The edit form round-trips.
		q, errs := p.Input().Validate(fuzzNow)
		if len(errs) > 0 || q.StartDate != p.StartDate || q.DayEnd != p.DayEnd || q.Title != p.Title || q.DurationMinutes != p.DurationMinutes {
			t.Fatalf("Input() does not round-trip: %v %+v", errs, q)
		}
	})
}

func FuzzParseTimeframe(f *testing.F) {
	f.Add("2030-03-02", "09:00", "10:30", "1", "Europe/Berlin")
	f.Add("2030-03-29", "02:00", "03:00", "2", "America/New_York")
	f.Add("x", "25:00", "-1:00", "9", "")
	p := &Poll{StartDate: "2030-03-02", EndDate: "2030-03-31", DayStart: 0, DayEnd: 24 * 60, TZ: "Europe/Berlin"}
	f.Fuzz(func(t *testing.T, date, start, end, tier, tz string) {
		tfs, errs := ParseTimeframe(p, date, start, end, tier, tz)
		if len(errs) > 0 {
			return
		}
		if len(tfs) == 0 {
			t.Fatalf("accepted no timeframe without a message")
		}
		for i, tf := range tfs {
			if tf.Tier < 1 || tf.Tier > 3 || !tf.Start.Before(tf.End) || p.CheckRange(tf.Start, tf.End) != nil {
				t.Fatalf("accepted an invalid timeframe %+v", tf)
			}
			if i > 0 && !tfs[i-1].End.Before(tf.Start) {
				t.Fatalf("pieces touch, overlap or are unsorted: %+v", tfs)
			}
		}
	})
}

func FuzzParseAvailability(f *testing.F) {
	f.Add([]byte(`{"slots":[{"start":"2030-03-02T08:00:00Z","tier":1},{"start":"2030-03-02T08:15:00Z","tier":1}]}`))
	f.Add([]byte(`{"slots":[{"start":"2030-03-02T08:00:00Z","tier":4}]}`))
	f.Add([]byte(`{"slots":[],"x":1}`))
	f.Add([]byte(`{"slots":null}{}`))
	p := &Poll{StartDate: "2030-03-02", EndDate: "2030-03-03", DayStart: 9 * 60, DayEnd: 12 * 60, TZ: "Europe/Berlin"}
	f.Fuzz(func(t *testing.T, body []byte) {
		tfs, err := ParseAvailability(p, body)
		if err != nil {
			return
		}
		for i, tf := range tfs {
			if tf.Tier < 1 || tf.Tier > 3 || p.CheckRange(tf.Start, tf.End) != nil {
				t.Fatalf("invalid timeframe %+v", tf)
			}
			if i > 0 && tfs[i-1].End.After(tf.Start) {
				t.Fatalf("timeframes overlap or are unsorted")
			}
		}
	})
}

func FuzzParseBusy(f *testing.F) {
	f.Add([]byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:1\r\nDTSTART:20300302T090000Z\r\nDTEND:20300302T100000Z\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"))
	f.Add([]byte("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:2\r\nDTSTART;TZID=W. Europe Standard Time:20300302T090000\r\nDURATION:PT1H\r\nRRULE:FREQ=DAILY;COUNT=5\r\nEXDATE;TZID=W. Europe Standard Time:20300303T090000\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"))
	f.Add([]byte("not a calendar"))
	for _, ics := range hostileCalendars() {
		if len(ics) < 4096 {
			f.Add([]byte(ics))
		}
	}
	from, to := time.Date(2030, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2030, 3, 10, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		busy, err := ParseBusy(context.Background(), bytes.NewReader(data), from, to, 100)
		if err != nil {
			var ce *CalendarError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v; want a CalendarError", err)
			}
			return
		}
		if len(busy) > 100 {
			t.Fatalf("%d intervals; want at most 100", len(busy))
		}
		for i, b := range busy {
			if b.Start.Before(from) || b.End.After(to) || !b.Start.Before(b.End) {
				t.Fatalf("interval %v-%v outside [from, to] or empty", b.Start, b.End)
			}
			if i > 0 && !busy[i-1].End.Before(b.Start) {
				t.Fatalf("intervals not merged")
			}
		}
	})
}

func FuzzNamesAndComments(f *testing.F) {
	f.Add("Ada Lovelace")
	f.Add("  \x00bad ")
	f.Add(strings.Repeat("é", 100))
	f.Fuzz(func(t *testing.T, s string) {
		// What is accepted passes the rule again unchanged, so it holds no
		// control or bidi characters, is NFC and is trimmed.
		if n, msg := ValidName(s); msg == "" {
			if again, msg := nameField.Clean(n); n == "" || again != n || msg != "" {
				t.Fatalf("accepted name %q (again: %q, %q)", n, again, msg)
			}
		}
		if c, msg := ValidComment(s); msg == "" {
			if again, msg := commentField.Clean(c); c == "" || again != c || msg != "" {
				t.Fatalf("accepted comment %q (again: %q, %q)", c, again, msg)
			}
		}
	})
}
