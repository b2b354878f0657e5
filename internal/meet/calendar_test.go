package meet

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

const testICS = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
	// 09:00-10:00 Berlin (08:00-09:00 UTC) on 2030-03-04.
	"BEGIN:VEVENT\r\nUID:simple\r\nDTSTART;TZID=Europe/Berlin:20300304T090000\r\nDTEND;TZID=Europe/Berlin:20300304T100000\r\nEND:VEVENT\r\n" +
	// Weekly on Tuesdays 12:00-13:00 UTC from 2030-03-05, the 12th excluded,
	// the 19th moved to 15:00-16:00 by an override.
	"BEGIN:VEVENT\r\nUID:weekly\r\nDTSTART:20300305T120000Z\r\nDTEND:20300305T130000Z\r\nRRULE:FREQ=WEEKLY;COUNT=4\r\nEXDATE:20300312T120000Z\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:weekly\r\nRECURRENCE-ID:20300319T120000Z\r\nDTSTART:20300319T150000Z\r\nDTEND:20300319T160000Z\r\nEND:VEVENT\r\n" +
	// An all-day event on the 7th, an Outlook zone name, a cancelled and a free event.
	"BEGIN:VEVENT\r\nUID:allday\r\nDTSTART;VALUE=DATE:20300307\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:outlook\r\nDTSTART;TZID=Pacific Standard Time:20300308T090000\r\nDURATION:PT30M\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:cancelled\r\nSTATUS:CANCELLED\r\nDTSTART:20300310T090000Z\r\nDTEND:20300310T100000Z\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:free\r\nTRANSP:TRANSPARENT\r\nDTSTART:20300311T090000Z\r\nDTEND:20300311T100000Z\r\nEND:VEVENT\r\n" +
	"END:VCALENDAR\r\n"

func TestParseBusy(t *testing.T) {
	from, to := utc("2030-03-01 00:00"), utc("2030-03-31 00:00")
	got, err := ParseBusy(context.Background(), strings.NewReader(testICS), from, to, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{
		{"2030-03-04 08:00", "2030-03-04 09:00"}, // Berlin is UTC+1 in March
		{"2030-03-05 12:00", "2030-03-05 13:00"},
		{"2030-03-07 00:00", "2030-03-08 00:00"},
		{"2030-03-08 17:00", "2030-03-08 17:30"}, // Pacific is UTC-8 before 10 March
		{"2030-03-19 15:00", "2030-03-19 16:00"}, // the override, not 12:00
		{"2030-03-26 12:00", "2030-03-26 13:00"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d intervals %v; want %d", len(got), got, len(want))
	}
	for i, w := range want {
		if !got[i].Start.Equal(utc(w[0])) || !got[i].End.Equal(utc(w[1])) {
			t.Errorf("interval %d = %s-%s; want %s-%s", i, got[i].Start.Format("01-02 15:04"), got[i].End.Format("01-02 15:04"), w[0], w[1])
		}
	}
	if _, err := ParseBusy(context.Background(), strings.NewReader("hello"), from, to, 10); err != ErrBadCalendar {
		t.Errorf("garbage: %v; want ErrBadCalendar", err)
	}
	if got, _ := ParseBusy(context.Background(), strings.NewReader(testICS), from, to, 2); len(got) != 2 {
		t.Errorf("max 2: got %d", len(got))
	}
}

func TestEventICSAndCSV(t *testing.T) {
	p := &Poll{ID: "AAAAAAAAAAAAAAAAAAAAAA", Title: "Dinner, with; friends", Description: "Bring food", TZ: "UTC"}
	ics, err := EventICS(p, utc("2030-03-04 18:00"), utc("2030-03-04 20:00"), "http://x/meet/polls/A", utc("2030-03-01 00:00"))
	if err != nil {
		t.Fatal(err)
	}
	b := string(ics)
	for _, s := range []string{"BEGIN:VEVENT", "DTSTART:20300304T180000Z", "DTEND:20300304T200000Z", `SUMMARY:Dinner\, with\; friends`, "UID:AAAAAAAAAAAAAAAAAAAAAA@meet.tutti"} {
		if !strings.Contains(b, s) {
			t.Errorf(".ics lacks %q:\n%s", s, b)
		}
	}
	if back, err := ParseBusy(context.Background(), strings.NewReader(b), utc("2030-03-01 00:00"), utc("2030-03-31 00:00"), 10); err != nil || len(back) != 1 {
		t.Errorf("our own .ics does not read back: %v %v", back, err)
	}
	var buf bytes.Buffer
	err = WriteCSV(&buf, p, []Participant{{ID: 1, Name: "=HYPERLINK(\"x\")"}, {ID: 2, Name: "Ada"}},
		[]Timeframe{{ParticipantID: 1, Start: utc("2030-03-04 09:00"), End: utc("2030-03-04 10:00"), Tier: 2},
			{ParticipantID: 2, Start: utc("2030-03-04 11:00"), End: utc("2030-03-04 11:15"), Tier: 1}}, time.UTC)
	want := "participant,date,start,end,tier,tier_name,zone,start_at,end_at\n\"'=HYPERLINK(\"\"x\"\")\",2030-03-04,09:00,10:00,2,fine,UTC,2030-03-04T09:00:00Z,2030-03-04T10:00:00Z\nAda,2030-03-04,11:00,11:15,1,preferred,UTC,2030-03-04T11:00:00Z,2030-03-04T11:15:00Z\n"
	if err != nil || buf.String() != want {
		t.Errorf("csv = %q, %v; want %q", buf.String(), err, want)
	}
}
