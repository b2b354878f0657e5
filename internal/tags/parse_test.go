package tags

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseEdges: the limits of a tag and a mention, marks inside a tag,
// and the words they must start.
func TestParseEdges(t *testing.T) {
	tests := []struct {
		in         string
		tags, ment string // Tags and Mentions, joined by commas
	}{
		{"#" + strings.Repeat("ü", 50), strings.Repeat("ü", 50), ""},
		{"#" + strings.Repeat("a", 51), "", ""},
		{"#" + strings.Repeat("İ", 50), strings.Repeat("i", 50), ""}, // lower case maps rune to rune: the key is no longer
		{"@" + strings.Repeat("b", 30), "", strings.Repeat("b", 30)},
		{"#नमस्ते and #Straße", "नमस्ते,straße", ""}, // combining marks are part of a tag
		{"#_x #1a #a_1 #__", "_x,1a,a_1", ""},
		{"x#y a@b @c@d", "", ""},
		{"(#jazz), [@Ann]: #Jazz!", "jazz", "ann"},
		{"https://x.org/@ann/#tag @ann", "", "ann"},
	}
	for _, tt := range tests {
		if got := strings.Join(Tags(tt.in), ","); got != tt.tags {
			t.Errorf("Tags(%q) = %q; want %q", tt.in, got, tt.tags)
		}
		if got := strings.Join(Mentions(tt.in), ","); got != tt.ment {
			t.Errorf("Mentions(%q) = %q; want %q", tt.in, got, tt.ment)
		}
	}
}

// TestKey: a tag named in a URL has the key it was indexed under; anything
// that is not one tag is refused.
func TestKey(t *testing.T) {
	for in, want := range map[string]string{"Jazz": "jazz", "café": "café", "a_1": "a_1"} {
		if got, ok := Key(in); !ok || got != want {
			t.Errorf("Key(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "2024", "a b", "a#b", "#a", strings.Repeat("x", 51), "a/b"} {
		if got, ok := Key(in); ok {
			t.Errorf("Key(%q) = %q; want no tag", in, got)
		}
	}
}

// FuzzTags: every tag Tags finds is its own key, found again by Key, and is
// one of the text's Tag tokens; every mention is a lower-case username.
func FuzzTags(f *testing.F) {
	for _, s := range []string{"#Go #go #GO", "@Ann @ann", "#é́ #a\u0301b", "##a #a# a#a", "#İstanbul", "#ǅ", "#" + strings.Repeat("İ", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		found := map[string]bool{}
		for _, tok := range Parse(s) {
			if tok.Kind == Tag {
				found[tok.Value] = true
			}
		}
		for _, tag := range Tags(s) {
			if !found[tag] {
				t.Fatalf("Tags(%q) has %q, which is no Tag token", s, tag)
			}
			if !utf8.ValidString(tag) || utf8.RuneCountInString(tag) > 50 {
				t.Fatalf("tag %q: invalid or too long", tag)
			}
			if k, ok := Key(tag); !ok || k != tag {
				t.Fatalf("Key(%q) = %q, %v; want the tag itself", tag, k, ok)
			}
		}
		for _, m := range Mentions(s) {
			if m != strings.ToLower(m) || len(m) == 0 || len(m) > 30 {
				t.Fatalf("mention %q: not a lower-case username", m)
			}
		}
	})
}
