package meet

import (
	"bytes"
	"errors"
	"strings"
	"time"
	"unicode/utf8"
)

// EventICS is the closed poll's chosen time as an iCalendar file (RFC 5545):
// CRLF line endings, TEXT values escaped (backslash, semicolon, comma, line
// breaks as \n) and lines folded at 75 octets without splitting a UTF-8
// sequence. go-ical's encoder refuses a value with a CR (a description typed
// in a browser has CRLF line breaks) and folds nothing, hence this writer.
func EventICS(p *Poll, start, end time.Time, url string, now time.Time) ([]byte, error) {
	if !start.Before(end) {
		return nil, errors.New("meet: event.ics: the chosen time ends before it starts")
	}
	const stamp = "20060102T150405Z"
	desc := url
	if d := strings.TrimSpace(p.Description); d != "" {
		desc = d + "\n\n" + url
	}
	var b bytes.Buffer
	line := func(name, value string) { writeFolded(&b, name+":"+value) }
	line("BEGIN", "VCALENDAR")
	line("VERSION", "2.0")
	line("PRODID", "-//tutti//meet//EN")
	line("CALSCALE", "GREGORIAN")
	line("METHOD", "PUBLISH")
	line("BEGIN", "VEVENT")
	line("UID", icsText(p.ID+"@meet.tutti"))
	line("DTSTAMP", now.UTC().Format(stamp))
	line("DTSTART", start.UTC().Format(stamp))
	line("DTEND", end.UTC().Format(stamp))
	line("SUMMARY", icsText(p.Title))
	if desc != "" {
		line("DESCRIPTION", icsText(desc))
	}
	if u := icsURI(url); u != "" {
		line("URL", u)
	}
	line("END", "VEVENT")
	line("END", "VCALENDAR")
	return b.Bytes(), nil
}

// icsText escapes a TEXT value (RFC 5545 section 3.3.11): every line break
// (CRLF, CR or LF) becomes \n; other control characters, which TEXT cannot
// hold, are dropped, and invalid UTF-8 is replaced.
func icsText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\' || r == ';' || r == ',':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n' || r == '\r':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// icsURI is a URI value without the characters a content line cannot hold.
func icsURI(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x21 || r == 0x7f || r == '"' {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
}

// writeFolded writes one content line, folded so that no line is longer
// than 75 octets (the leading space of a continuation counts), never inside
// a UTF-8 sequence, and ended with CRLF.
func writeFolded(b *bytes.Buffer, line string) {
	limit := 75
	for len(line) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(line[cut]) {
			cut--
		}
		b.WriteString(line[:cut])
		b.WriteString("\r\n ")
		line = line[cut:]
		limit = 74
	}
	b.WriteString(line)
	b.WriteString("\r\n")
}
