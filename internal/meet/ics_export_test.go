package meet

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tutti-dev/tutti/internal/testenv"
)

// icalendarPy reads an .ics with Debian's python3-icalendar, a parser
// independent of ours, and prints what a calendar would import.
const icalendarPy = `
import json, sys, icalendar
cal = icalendar.Calendar.from_ical(sys.stdin.buffer.read())
evs = list(cal.walk("VEVENT"))
e = evs[0]
print(json.dumps({
    "events": len(evs),
    "errors": [str(x) for c in cal.walk() for x in c.errors],
    "uid": str(e.get("uid")),
    "summary": str(e.get("summary")),
    "description": str(e.get("description")),
    "start": e.decoded("dtstart").isoformat(),
    "end": e.decoded("dtend").isoformat(),
    "url": str(e.get("url")),
}))
`

type icalendarEvent struct {
	Events                                     int
	Errors                                     []string
	UID, Summary, Description, Start, End, URL string
}

// readWithICalendar parses an .ics with python3-icalendar; when
// /usr/bin/python3 lacks it, testenv.Missing skips the test, or fails it
// where the run requires it (CI installs it: .ci/run).
func readWithICalendar(t *testing.T, ics []byte) icalendarEvent {
	t.Helper()
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil || exec.Command(py, "-c", "import icalendar").Run() != nil {
		testenv.Missing(t, "python3-icalendar", "/usr/bin/python3 cannot import icalendar: apt-get install python3-icalendar")
	}
	cmd := exec.Command(py, "-c", icalendarPy)
	cmd.Stdin = bytes.NewReader(ics)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3-icalendar cannot read the file: %v\n%s\n%s", err, stderr.String(), ics)
	}
	var ev icalendarEvent
	if err := json.Unmarshal(out, &ev); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return ev
}

// checkICSLines checks the RFC 5545 form of every line: CRLF endings, at
// most 75 octets, valid UTF-8 (no sequence split by a fold).
func checkICSLines(t *testing.T, ics []byte) {
	t.Helper()
	if len(ics) == 0 || !bytes.HasSuffix(ics, []byte("\r\n")) {
		t.Fatalf("the file is empty or does not end with CRLF: %q", ics)
	}
	for i, l := range strings.Split(strings.TrimSuffix(string(ics), "\r\n"), "\r\n") {
		if len(l) > 75 || strings.ContainsAny(l, "\r\n") || !utf8.ValidString(l) {
			t.Errorf("line %d is not a valid content line (%d octets): %q", i+1, len(l), l)
		}
	}
}

func TestEventICSText(t *testing.T) {
	title := "Dîner, à la \"Brasserie\"; 🍷 " + strings.Repeat("é", 40)
	// A description typed in a browser: CRLF line breaks.
	desc := "First line\r\nSecond; line, with \\ backslash\r\n\r\n" + strings.Repeat("日本語", 30) + "\tend"
	p := &Poll{ID: "AAAAAAAAAAAAAAAAAAAAAA", Title: title, Description: desc, TZ: "UTC"}
	start, end := utc("2030-03-04 18:00"), utc("2030-03-04 20:00")
	url := "https://meet.example/meet/polls/AAAAAAAAAAAAAAAAAAAAAA"
	ics, err := EventICS(p, start, end, url, utc("2030-03-01 00:00"))
	if err != nil {
		t.Fatalf("EventICS: %v", err)
	}
	checkICSLines(t, ics)
	for _, s := range []string{"DESCRIPTION:First line\\nSecond\\; line\\, with \\\\ backslash\\n\\n", "SUMMARY:Dîner\\, à la \"Brasserie\"\\; 🍷"} {
		if !strings.Contains(strings.ReplaceAll(string(ics), "\r\n ", ""), s) {
			t.Errorf(".ics lacks %q:\n%s", s, ics)
		}
	}
	ev := readWithICalendar(t, ics)
	const iso = "2006-01-02T15:04:05-07:00" // Python's isoformat of an aware time
	wantDesc := strings.ReplaceAll(desc, "\r\n", "\n") + "\n\n" + url
	if ev.Events != 1 || len(ev.Errors) > 0 || ev.Summary != title || ev.Description != wantDesc || ev.URL != url ||
		ev.UID != p.ID+"@meet.tutti" || ev.Start != start.Format(iso) || ev.End != end.Format(iso) {
		t.Errorf("python3-icalendar reads %+v;\nwant summary %q, description %q, %s-%s", ev, title, wantDesc, start.Format(iso), end.Format(iso))
	}
}

func TestEventICSFold(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{strings.Repeat("a", 75), strings.Repeat("a", 75) + "\r\n"},
		{strings.Repeat("a", 76), strings.Repeat("a", 75) + "\r\n a\r\n"},
		{strings.Repeat("a", 74) + "é", strings.Repeat("a", 74) + "\r\n é\r\n"}, // not inside é
		{strings.Repeat("a", 75+74+1), strings.Repeat("a", 75) + "\r\n " + strings.Repeat("a", 74) + "\r\n a\r\n"},
	} {
		var b bytes.Buffer
		writeFolded(&b, c.in)
		if b.String() != c.want {
			t.Errorf("writeFolded(%d octets) = %q; want %q", len(c.in), b.String(), c.want)
		}
	}
	if got := icsText("a\rb\x00c\x7fd\r\ne"); got != `a\nbcd\ne` {
		t.Errorf("icsText = %q; want %q", got, `a\nbcd\ne`)
	}
}

// ReadWithICalendar is readWithICalendar for the HTTP tests (package
// meet_test).
var ReadWithICalendar = readWithICalendar

// ICalendarEvent is what python3-icalendar read.
type ICalendarEvent = icalendarEvent
