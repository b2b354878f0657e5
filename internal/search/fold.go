package search

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tutti-dev/tutti/internal/text"
)

// Fold is text as search stores and compares it: folded as text.Fold does
// it (lower case, accents and other marks removed, "ß" -> "ss"),
// apostrophes dropped ("O'Brien" is "obrien", as people type it either
// way), and every other run of characters that are neither letters nor
// digits made one space, with none at either end: "Zoë O'Brien-Smith" is
// "zoe obrien smith". Its words are the words an Index matches.
func Fold(s string) string {
	s = text.Fold(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case r == '\'' || r == '’':
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
			space = false
		default:
			space = true
		}
	}
	return b.String()
}

// Bounds of what Words reads of a query.
const (
	MaxWords     = 16   // words a query may have, whatever max a caller asks
	MaxWordBytes = 64   // bytes a word may have; a longer one is cut (at a character)
	maxReadBytes = 4096 // bytes of a query read at all
)

// Words is q's words as a search matches them (Fold's): at most max of
// them (at most MaxWords), each of at most MaxWordBytes bytes; the rest is
// ignored, so that the work of a search is bounded whatever was typed.
// Nothing but letters and digits (an empty query, "*", "-") is no words.
func Words(q string, max int) []string {
	if max <= 0 || max > MaxWords {
		max = MaxWords
	}
	if len(q) > maxReadBytes {
		q = cut(q, maxReadBytes)
	}
	var out []string
	for w := range strings.FieldsSeq(Fold(q)) {
		if len(out) == max {
			break
		}
		out = append(out, cut(w, MaxWordBytes))
	}
	return out
}

// cut is s's first n bytes at most, never inside a character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
