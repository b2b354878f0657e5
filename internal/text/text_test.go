package text

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFieldClean(t *testing.T) {
	line := Field{Name: "The title", Min: 1, Max: 5}
	para := Field{Name: "The comment", Max: 10, Multiline: true}
	tests := []struct {
		name    string
		f       Field
		in      string
		want    string // cleaned value when msg is "" (a refused one comes back as typed)
		wantMsg string // substring of the message; "" means accepted
	}{
		{"plain", line, "hello", "hello", ""},
		{"trimmed", line, " \t hi \u00a0\n", "hi", ""},
		{"invalid UTF-8", line, "a\xffb", "", "not valid text (UTF-8)"},
		{"lone surrogate bytes", line, "\xed\xa0\x80", "", "not valid text (UTF-8)"},
		{"empty required", line, "   ", "", "The title is required."},
		{"empty message override", Field{Name: "The title", Min: 1, Empty: "Give it a title."}, "", "", "Give it a title."},
		{"empty optional", para, " \n ", "", ""},
		{"too short", Field{Name: "The code", Min: 3}, "ab", "", "at least 3 characters; this one has 2"},
		{"at max", line, "abcde", "abcde", ""},
		{"over max", line, "abcdef", "", "The title can have at most 5 characters; this one has 6."},
		{"counts code points not bytes", line, "ééééé", "ééééé", ""},
		{"NFC before counting", line, strings.Repeat("e\u0301", 5), "ééééé", ""},
		{"NFC stored", para, "Cafe\u0301", "Café", ""},
		{"newline in single line", line, "a\nb", "", "must be on one line"},
		{"CRLF in single line", line, "a\r\nb", "", "must be on one line"},
		{"lone CR in single line", line, "a\rb", "", "must be on one line"},
		{"tab in single line", line, "a\tb", "", "cannot contain tabs"},
		{"U+2028 in single line", line, "a\u2028b", "", "must be on one line"},
		{"U+2029 in single line", line, "a\u2029b", "", "must be on one line"},
		{"CRLF to LF", para, "a\r\nb\rc", "a\nb\nc", ""},
		{"separators to LF", para, "a\u2028b\u2029c", "a\nb\nc", ""},
		{"tab in multi line", para, "a\tb", "a\tb", ""},
		{"NUL", para, "a\x00b", "", "control character (U+0000)"},
		{"bell", line, "a\ab", "", "control character (U+0007)"},
		{"escape", para, "a\x1b[31mb", "", "control character (U+001B)"},
		{"DEL", line, "a\x7fb", "", "control character (U+007F)"},
		{"C1 NEL inside", line, "a\u0085b", "", "control character (U+0085)"},
		{"C1 CSI", para, "a\u009bb", "", "control character (U+009B)"},
		{"RLO", line, "a\u202eb", "", "changes the direction of text (U+202E)"},
		{"LRE", line, "a\u202ab", "", "(U+202A)"},
		{"RLE", line, "a\u202bb", "", "(U+202B)"},
		{"PDF", line, "a\u202cb", "", "(U+202C)"},
		{"LRO", para, "a\u202db", "", "(U+202D)"},
		{"LRI", line, "a\u2066b", "", "(U+2066)"},
		{"RLI", line, "a\u2067b", "", "(U+2067)"},
		{"FSI", line, "a\u2068b", "", "(U+2068)"},
		{"PDI", line, "a\u2069b", "", "(U+2069)"},
		{"RLO at the edge is not trimmed away", line, "\u202e", "", "(U+202E)"},
		{"LRM and RLM allowed", line, "a\u200eb\u200f", "a\u200eb\u200f", ""},
		{"Arabic letter mark allowed", line, "\u061cب", "\u061cب", ""},
		{"right-to-left text", line, "שלום", "שלום", ""},
		{"emoji", line, "hi 👋", "hi 👋", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, msg := tt.f.Clean(tt.in)
			if tt.wantMsg == "" {
				if msg != "" || got != tt.want {
					t.Errorf("Clean(%q) = %q, %q; want %q, \"\"", tt.in, got, msg, tt.want)
				}
				return
			}
			// A refused value comes back as typed (invalid bytes as
			// U+FFFD), for the form shown again to keep it.
			typed := strings.ToValidUTF8(tt.in, "\uFFFD")
			if !strings.Contains(msg, tt.wantMsg) || got != typed {
				t.Errorf("Clean(%q) = %q, %q; want %q as typed, a message containing %q", tt.in, got, msg, typed, tt.wantMsg)
			}
		})
	}
}

// Every message is a written sentence naming the field.
func TestMessagesNameTheField(t *testing.T) {
	f := Field{Name: "Your name", Min: 2, Max: 3}
	for _, in := range []string{"", "a", "abcd", "a\nb", "a\x00", "a\u202e", "\xff"} {
		_, msg := f.Clean(in)
		if !strings.HasPrefix(msg, "Your name ") || !strings.HasSuffix(msg, ".") {
			t.Errorf("Clean(%q) message %q; want a sentence starting with the field's name", in, msg)
		}
	}
}

// What Clean accepts is a fixed point of the rule: cleaning it again changes
// nothing, so stored text always passes the rule it was checked by.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"hi", " a\r\nb ", "e\u0301", "\u202e", "a\u2028b", "\x00", "\xff", "\u0085x\u0085"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, s string, multiline bool) {
		r := Field{Name: "The text", Min: 1, Max: 50, Multiline: multiline}
		got, msg := r.Clean(s)
		if msg != "" {
			return
		}
		if again, msg := r.Clean(got); again != got || msg != "" {
			t.Fatalf("Clean(%q) = %q, but cleaning that gives %q, %q", s, got, again, msg)
		}
		for _, c := range got {
			if IsBidiControl(c) || c == '\r' || c == '\u2028' || c == '\u2029' {
				t.Fatalf("Clean(%q) = %q keeps U+%04X", s, got, c)
			}
		}
	})
}

func TestIsToken(t *testing.T) {
	for s, want := range map[string]bool{
		"AbC-_09": true, "YWF4SBABEIJGE25ORBCGUCEOX4": true, "": false,
		"a/b": false, "a b": false, "é": false, "a.b": false, "a%2F": false,
	} {
		if got := IsToken(s); got != want {
			t.Errorf("IsToken(%q) = %v; want %v", s, got, want)
		}
	}
}

func TestQuery(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  zoë  ", "zoë"},
		{strings.Repeat("é", 150), strings.Repeat("é", MaxQuery)}, // cut at a code point, never inside one
		{"", ""},
	} {
		if got := Query(tc.in); got != tc.want || !utf8.ValidString(got) {
			t.Errorf("Query(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
