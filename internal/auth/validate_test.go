package auth

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckUsername(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{"a", true}, {"Alice_99", true}, {strings.Repeat("x", 30), true},
		{"", false}, {strings.Repeat("x", 31), false}, {"al ice", false}, {"al-ice", false},
		{"élise", false}, {"a.b", false}, {"a@b", false}, {"<script>", false},
	}
	for _, c := range cases {
		if got := CheckUsername(c.in) == ""; got != c.ok {
			t.Errorf("CheckUsername(%q) ok = %v; want %v", c.in, got, c.ok)
		}
	}
}

// An account's own address may not be in the reserved .invalid domain
// (load rehearsals' runners have those); any other use may.
func TestCheckAccountEmail(t *testing.T) {
	for in, ok := range map[string]bool{"rh1r1@rehearsal.tutti.invalid": false, "a@EXAMPLE.INVALID": false,
		"a@invalid.example.com": true, "a@example.com": true, "a@b": false} {
		if got := CheckAccountEmail(in) == ""; got != ok {
			t.Errorf("CheckAccountEmail(%q) ok = %v; want %v", in, got, ok)
		}
	}
	if CheckEmail("a@example.invalid") != "" {
		t.Error("CheckEmail refused an .invalid address")
	}
}

func TestCheckEmail(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{"a@example.com", true}, {"First.Last+tag@sub.example.org", true},
		{"", false}, {"a", false}, {"a@b", false}, {"@example.com", false}, {"a@.com", false},
		{"a@example..com", false}, {"A <a@example.com>", false}, {"a b@example.com", false},
		{"a@example.com\n", false}, {strings.Repeat("a", 250) + "@x.io", false},
	}
	for _, c := range cases {
		if got := CheckEmail(c.in) == ""; got != c.ok {
			t.Errorf("CheckEmail(%q) ok = %v; want %v", c.in, got, c.ok)
		}
	}
}

func TestCheckPasswordRules(t *testing.T) {
	cases := []struct {
		in string
		ok bool
	}{
		{"12345678", true}, {"ééééééé", false}, {"éééééééé", true}, {strings.Repeat("x", 256), true},
		{"", false}, {"1234567", false}, {strings.Repeat("x", 257), false},
	}
	for _, c := range cases {
		if got := CheckPasswordRules(c.in) == ""; got != c.ok {
			t.Errorf("CheckPasswordRules(%q) ok = %v; want %v", c.in, got, c.ok)
		}
	}
}

func TestProfileValidate(t *testing.T) {
	cases := []struct {
		name   string
		in     Profile
		fields []string
	}{
		{"fine", Profile{DisplayName: " Alice ", Bio: "Hi.\r\nI play oboe."}, nil},
		{"long name", Profile{DisplayName: strings.Repeat("x", 51)}, []string{"display_name"}},
		{"control in name", Profile{DisplayName: "a\x00b"}, []string{"display_name"}},
		{"newline in name", Profile{DisplayName: "a\nb"}, []string{"display_name"}},
		{"long bio", Profile{Bio: strings.Repeat("x", 501)}, []string{"bio"}},
		{"bidi override in bio", Profile{Bio: "a\u202eb"}, []string{"bio"}},
		{"bidi isolate in name", Profile{DisplayName: "a\u2067b"}, []string{"display_name"}},
		{"bidi embedding in bio", Profile{Bio: "a\u202bb"}, []string{"bio"}},
		{"C1 control in bio", Profile{Bio: "a\u009bb"}, []string{"bio"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := c.in.Validate()
			if len(f) != len(c.fields) {
				t.Fatalf("fields %v; want %v", f, c.fields)
			}
			for _, k := range c.fields {
				if f[k] == "" {
					t.Errorf("no message for %s; got %v", k, f)
				}
			}
		})
	}
}

func FuzzCheckUsername(f *testing.F) {
	for _, s := range []string{"alice", "A_1", "", "é", strings.Repeat("z", 31), "a b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckUsername(s) != "" {
			return
		}
		if len(s) < 1 || len(s) > MaxUsername {
			t.Fatalf("accepted %q of length %d", s, len(s))
		}
		for _, r := range s {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
				t.Fatalf("accepted %q with %q", s, r)
			}
		}
		if k := UsernameKey(s); len(k) != len(s) || CheckUsername(k) != "" {
			t.Fatalf("key %q of %q is not itself a valid username", k, s)
		}
	})
}

func FuzzCheckEmail(f *testing.F) {
	for _, s := range []string{"a@example.com", "a@b", "x <a@b.c>", "\"q\"@x.io", "a@b..c", "@", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckEmail(s) != "" {
			return
		}
		if len(s) > MaxEmail || !utf8.ValidString(s) {
			t.Fatalf("accepted %q", s)
		}
		if strings.Count(s, "@") < 1 || strings.ContainsAny(s, " \t\r\n<>,\"") {
			t.Fatalf("accepted %q", s)
		}
		if EmailKey(s) != strings.ToLower(s) {
			t.Fatalf("key of %q is %q", s, EmailKey(s))
		}
	})
}
