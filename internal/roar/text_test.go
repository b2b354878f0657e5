package roar

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tutti-dev/tutti/internal/tags"
)

func TestParse(t *testing.T) {
	type tok struct {
		kind      int
		text, val string
	}
	tests := []struct {
		in   string
		want []tok
	}{
		{"hello", []tok{{tags.Text, "hello", ""}}},
		{"hi @ann!", []tok{{tags.Text, "hi ", ""}, {tags.Mention, "@ann", "ann"}, {tags.Text, "!", ""}}},
		{"mail me at bob@example.com", []tok{{tags.Text, "mail me at bob@example.com", ""}}},
		{"#Go and #go2", []tok{{tags.Tag, "#Go", "go"}, {tags.Text, " and ", ""}, {tags.Tag, "#go2", "go2"}}},
		{"#2024 is no tag", []tok{{tags.Text, "#2024 is no tag", ""}}},
		{"#café ok", []tok{{tags.Tag, "#café", "café"}, {tags.Text, " ok", ""}}},
		{"see https://example.com/a?b=1.", []tok{{tags.Text, "see ", ""}, {tags.Link, "https://example.com/a?b=1", "https://example.com/a?b=1"}, {tags.Text, ".", ""}}},
		{"(http://x.org)", []tok{{tags.Text, "(", ""}, {tags.Link, "http://x.org", "http://x.org"}, {tags.Text, ")", ""}}},
		{"https://x.org/#notag", []tok{{tags.Link, "https://x.org/#notag", "https://x.org/#notag"}}},
		{"javascript:alert(1) @x", []tok{{tags.Text, "javascript:alert(1) ", ""}, {tags.Mention, "@x", "x"}}},
		{"http:// alone", []tok{{tags.Text, "http:// alone", ""}}},
		{"@" + strings.Repeat("a", 31), []tok{{tags.Text, "@" + strings.Repeat("a", 31), ""}}},
		{"a#b c@d", []tok{{tags.Text, "a#b c@d", ""}}},
	}
	for _, tt := range tests {
		got := tags.Parse(tt.in)
		var g []tok
		for _, t := range got {
			g = append(g, tok{t.Kind, t.Text, t.Value})
		}
		if len(g) != len(tt.want) {
			t.Errorf("Parse(%q) = %v; want %v", tt.in, g, tt.want)
			continue
		}
		for i := range g {
			if g[i] != tt.want[i] {
				t.Errorf("Parse(%q)[%d] = %v; want %v", tt.in, i, g[i], tt.want[i])
			}
		}
	}
}

func TestTagsAndMentions(t *testing.T) {
	s := "#Go #go @Ann @ann @bob #Rust"
	if got := strings.Join(tags.Tags(s), ","); got != "go,rust" {
		t.Errorf("Tags = %s; want go,rust", got)
	}
	if got := strings.Join(tags.Mentions(s), ","); got != "ann,bob" {
		t.Errorf("Mentions = %s; want ann,bob", got)
	}
}

func TestCleanBody(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"  hi  ", "hi", true},
		{"", "", false},
		{" \n\t ", "", false},
		{strings.Repeat("é", 280), strings.Repeat("é", 280), true}, // 560 bytes, 280 code points
		{strings.Repeat("é", 281), "", false},
		{strings.Repeat("🦁", 280), strings.Repeat("🦁", 280), true},
		{"bell\a", "", false},
		{"line\r\nbreak", "line\nbreak", true},
		{"bad \xff utf8", "", false},
		{"evil\u202etxt.exe", "", false}, // right-to-left override
		{"a\u2066b\u2069", "", false},    // isolates
		{"N\u0085EL", "", false},         // C1 control
		{"e\u0301", "\u00e9", true},      // NFC: one code point
	}
	for _, tt := range tests {
		got, err := CleanBody(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("CleanBody(%q) = %q, %v; want %q, ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// FuzzParse checks that parsing loses nothing and only makes safe links.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"hi @ann #go https://x.org/a.", "<script>alert(1)</script>", "@@##", "#é́", "http://", "(https://a.b/c))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b strings.Builder
		for _, tok := range tags.Parse(s) {
			b.WriteString(tok.Text)
			switch tok.Kind {
			case tags.Link:
				if !strings.HasPrefix(tok.Value, "http://") && !strings.HasPrefix(tok.Value, "https://") {
					t.Fatalf("link %q is not http(s)", tok.Value)
				}
				if strings.ContainsAny(tok.Value, " <>\"") {
					t.Fatalf("link %q holds a character that must end it", tok.Value)
				}
			case tags.Mention:
				if len(tok.Value) == 0 || len(tok.Value) > 30 {
					t.Fatalf("mention %q has a bad length", tok.Value)
				}
			case tags.Tag:
				if utf8.RuneCountInString(tok.Value) > 50 || tok.Value == "" {
					t.Fatalf("tag %q has a bad length", tok.Value)
				}
			}
		}
		if b.String() != s {
			t.Fatalf("tokens joined = %q; want the input %q", b.String(), s)
		}
		if body, err := CleanBody(s); err == nil && utf8.RuneCountInString(body) > MaxLen {
			t.Fatalf("CleanBody accepted %d code points", utf8.RuneCountInString(body))
		}
	})
}
