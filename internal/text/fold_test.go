package text

import "testing"

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"Zoë":             "zoe",
		"ZOE":             "zoe",
		"José Núñez":      "jose nunez",
		"Zoe\u0308":       "zoe", // e plus a combining diaeresis
		"Łukasz Dvořák":   "lukasz dvorak",
		"Søren Weiß":      "soren weiss",
		"Ærøskøbing":      "aeroskobing",
		"İstanbul Yılmaz": "istanbul yilmaz",
		"Ｆｕｌｌ ﬁx":         "full fix",
		"O'Brien-Smith":   "o'brien-smith",
		"":                "",
		"田中 太郎":           "田中 太郎",
	} {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q; want %q", in, got, want)
		}
	}
}

func FuzzFold(f *testing.F) {
	for _, s := range []string{"Zoë", "ß", "\xff", "e\u0301\u0301", "ǅ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Fold(s)
		if again := Fold(got); again != got {
			t.Fatalf("Fold(%q) = %q, but Fold of that is %q", s, got, again)
		}
	})
}
