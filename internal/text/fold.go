package text

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold is s as search compares it: lower case, with accents and other
// combining marks removed and compatibility forms spelled plainly
// ("Zoë" -> "zoe", "Ｆｕｌｌ" -> "full", "ﬁ" -> "fi"), and the letters that
// carry no separable accent written as their base letters ("ß" -> "ss",
// "Ø" -> "o", "ł" -> "l"). Search stores Fold of a name in a column of its
// own and folds the query the same way, so that "zoe" finds "Zoë" without
// the database folding anything (an unaccent() index is slow).
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFKD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		r = unicode.ToLower(r)
		if f, ok := folds[r]; ok {
			b.WriteString(f)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// folds are the letters that do not decompose into a base letter and a mark.
var folds = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d",
	'þ': "th", 'ı': "i", 'ħ': "h", 'ŧ': "t", 'ŋ': "n", 'ĸ': "k",
}
