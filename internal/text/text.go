// Package text holds the one set of rules every app applies to text typed by
// users (names, titles, roars, comments, bios, descriptions), so that the
// same input is accepted or refused the same way everywhere, with a written
// message naming the field. Every field a user types in, in every app, is
// cleaned by a Field before it is validated further or stored; Len counts
// characters as the Field does.
//
// A Field cleans and checks a value in this order:
//
//  1. The bytes must be valid UTF-8.
//  2. Line breaks are normalised: CRLF and a lone CR become LF, and in
//     multi-line fields the Unicode separators U+2028 and U+2029 become LF too.
//  3. The text is put in Normalization Form C, so that "é" typed as e plus a
//     combining accent is stored, compared and counted as the one character
//     a reader sees.
//  4. Surrounding white space (unicode.IsSpace) is trimmed.
//  5. Control characters (Unicode category Cc: C0, DEL and C1) are refused,
//     except LF and TAB in multi-line fields. A single-line field refuses
//     every line break, U+2028 and U+2029 included.
//  6. Bidirectional embeddings, overrides and isolates (U+202A-U+202E,
//     U+2066-U+2069) are refused: they make text display in an order other
//     than the one it is stored in (a file name "txt.exe" shown as
//     "exe.txt"), and they leak out of their field into the page around it.
//     The plain marks U+200E, U+200F and U+061C, which right-to-left
//     writing needs and which cannot reorder their neighbours, are allowed.
//  7. The length, counted in code points after all of the above, must lie
//     within [Min, Max].
package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Field is the rule for one form field.
type Field struct {
	// Name is how messages call the field, capitalised as it starts a
	// sentence: "The title", "Your name", "A roar".
	Name string
	// Min and Max bound the length in code points (Max 0: no upper bound).
	// Min 0 makes the field optional.
	Min, Max int
	// Multiline lets the field hold line breaks (LF) and tabs.
	Multiline bool
	// Empty, if set, is the message when a required field is left empty
	// (default: "<Name> is required.").
	Empty string
}

// Clean returns the cleaned value and "" if s passes the rule, or s as it
// was typed and a written message saying what to change. A refused value
// comes back unchanged (its invalid bytes, if any, as U+FFFD) so that the
// form shown again keeps what the user typed, whether the caller cleans
// into the very value it re-renders or not; only an accepted value is ever
// cleaned.
func (f Field) Clean(s string) (string, string) {
	if !utf8.ValidString(s) {
		return strings.ToValidUTF8(s, "\uFFFD"), f.Name + " contains bytes that are not valid text (UTF-8)."
	}
	typed := s
	s = newlines(s, f.Multiline)
	if !norm.NFC.IsNormalString(s) {
		s = norm.NFC.String(s)
	}
	s = strings.TrimSpace(s)
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			if !f.Multiline {
				if r == '\n' {
					return typed, f.Name + " must be on one line."
				}
				return typed, f.Name + " cannot contain tabs."
			}
		case r == '\u2028' || r == '\u2029':
			return typed, f.Name + " must be on one line."
		case IsBidiControl(r):
			return typed, f.Name + fmt.Sprintf(" contains a character that changes the direction of text (U+%04X); remove it.", r)
		case unicode.IsControl(r):
			return typed, f.Name + fmt.Sprintf(" contains a control character (U+%04X); remove it.", r)
		}
	}
	n := utf8.RuneCountInString(s)
	switch {
	case n == 0 && f.Min > 0:
		if f.Empty != "" {
			return typed, f.Empty
		}
		return typed, f.Name + " is required."
	case n < f.Min:
		return typed, fmt.Sprintf("%s needs at least %d characters; this one has %d.", f.Name, f.Min, n)
	case f.Max > 0 && n > f.Max:
		return typed, fmt.Sprintf("%s can have at most %d characters; this one has %d.", f.Name, f.Max, n)
	}
	return s, ""
}

// Len is the length of s as the rules count it: code points.
func Len(s string) int { return utf8.RuneCountInString(s) }

// MaxQuery is how much of a search box's text a search reads.
const MaxQuery = 100

// Query is a search box's text: trimmed, and cut to MaxQuery code points
// (never inside one).
func Query(s string) string {
	s = strings.TrimSpace(s)
	if Len(s) > MaxQuery {
		s = string([]rune(s)[:MaxQuery])
	}
	return s
}

// IsBidiControl reports whether r is a bidirectional embedding, override or
// isolate (U+202A-U+202E, U+2066-U+2069).
func IsBidiControl(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// newlines turns CRLF and lone CR into LF and, in multi-line text, the line
// and paragraph separators too.
func newlines(s string, multiline bool) string {
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	if multiline && strings.ContainsAny(s, "\u2028\u2029") {
		s = strings.NewReplacer("\u2028", "\n", "\u2029", "\n").Replace(s)
	}
	return s
}

// CSVCell defuses formula injection in a cell of an exported CSV: a cell
// that a spreadsheet would run as a formula (it begins with = + - @, a tab
// or a carriage return) is prefixed with a quote.
func CSVCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// IsToken reports whether s is made only of the characters of URL-safe
// base64 and base32 tokens (A-Z, a-z, 0-9, '-', '_'): an id from a path is
// checked with it before it reaches the database.
func IsToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}
